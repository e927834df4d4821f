// Syncs at the stops LLDB runs no stop hook at: an interrupt (Ctrl-C at the
// prompt, `process interrupt`, SBProcess::Stop(), an IDE's pause, which is
// SBProcess::Stop() in lldb-dap). LLDB 22 returns from
// Process::ProcessEventData::DoOnRemoval before its stop hooks when the stop
// event is marked interrupted; every other stop LLDB shows runs them
// (breakpoints, signals, exec, and the initial stops of launch, attach and
// core files, through Target::RunStopHooks(true)).
//
// How: a thread looks at the process of every target of the debuggers that
// loaded the plugin, 50 times a second. A process stopped at a stop no sync
// was at (StopHistory, Stop.h) is synced from here: at once when the
// stop's event says interrupted, else after 100 ms, time enough for a stop
// hook to have begun, with the
// target's API lock held (the registry lock only if free, never waited for
// with the API lock held: a `jit-sync` command takes them the other way): the
// process cannot be resumed under the sync, and a command that takes that
// lock (`bt`, `continue`) waits for it. Why not
// LLDB's events: a listener on a process's broadcaster gets a stop event only
// when LLDB forwards it, and an interrupt stop caught by Process::Halt's own
// listener (Ctrl-C at the prompt, in about half of the runs here) never is;
// a listener for the whole class of process broadcasters is refused on the
// command line (its event handler holds it). Looking needs no LLDB wait either,
// so none of this thread's waits is inside LLDB when it is taken down.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class InterruptStops {
public:
  // Looks at `debugger`'s targets from now on (at plugin load).
  void watch(lldb::SBDebugger debugger);
  // Ends the thread, for good, as the exit watcher does (a debugger is going,
  // or the library): at once, or once the sync it is in is done.
  void stop();

private:
  void loop();
  void look(); // one look at every target, with no lock of ours held

  struct Unsynced {
    uint32_t stopId;
    std::chrono::steady_clock::time_point since;
  };
  std::map<uint32_t, Unsynced> unsynced_; // by SBProcess::GetUniqueID(); the thread's own

  std::mutex mutex_;
  std::vector<lldb::SBDebugger> debuggers_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stopping_ = false;
};

InterruptStops &interruptStops(); // never destroyed: see stop()

// Syncs the stop `target`'s process is at, unless a sync was at it already or
// one is going on: for the thread above, and before the commands that show
// JIT code run (`thread backtrace`: a user who types `bt` right after Ctrl-C
// comes before the thread's next look).
void syncUnsyncedStop(lldb::SBTarget target);

} // namespace jitsym::plugin
