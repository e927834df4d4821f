// A stop of a target's process as the plugin meets it (Stop), and what the
// plugin did and said at the stops of one target (StopHistory). The stop hook,
// the `jit-sync` command, the compile watch's callback and the interrupt
// listener each make a Stop and ask the target's StopHistory; none of them
// keeps a flag of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "PendingBreakpoints.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// Bytes a compile stop saw on their way to the files (CompileWatch.h), after
// each file's end: not in the file yet.
struct AheadOfFiles {
  std::string map; // lines about to be written to the perf map
  // The jitdump's: what its FILE's buffer holds plus what an fwrite is about to
  // add to it, or a write(2)'s bytes. None: the buffer is read as at any stop.
  std::optional<std::string> dump;
};

class Stop {
public:
  enum class Kind {
    User,      // LLDB shows it and runs the stop hook (breakpoint, signal, exec, launch)
    Core,      // a core file's one stop
    Interrupt, // LLDB runs no stop hook at it (InterruptStops.h); synced by the listener or `bt`
    Command,   // `jit-sync` typed at whatever stop the process is at
    Compile,   // the compile watch's: LLDB resumes when its callback returns
  };

  Stop(Kind kind, uint32_t id) : kind_(kind), id_(id) {}
  // The stop `process` is at, met as `kind`; a core file's stop is Core
  // whoever meets it (a command's is the command's).
  static Stop at(lldb::SBProcess &process, Kind kind) {
    lldb::SBFileSpec core = process.GetCoreFile();
    if (kind != Kind::Command && core.IsValid() && core.GetFilename() != nullptr)
      kind = Kind::Core;
    return Stop(kind, process.GetStopID());
  }
  // A compile stop: its sync reads what may resolve `pending` and gives LLDB
  // only that; `ahead` is what the runtime is writing; `readsJitdump` false at
  // a write to the perf map (only its lines matter there).
  static Stop compile(lldb::SBProcess &process, const PendingBreakpoints &pending,
                      AheadOfFiles ahead, bool readsJitdump) {
    Stop stop(Kind::Compile, process.GetStopID());
    stop.pending_ = &pending;
    stop.ahead_ = std::move(ahead);
    stop.readsJitdump_ = readsJitdump;
    return stop;
  }

  Kind kind() const { return kind_; }
  uint32_t id() const { return id_; } // SBProcess::GetStopID
  bool isCompile() const { return kind_ == Kind::Compile; }
  // The breakpoints a compile stop is for; at other stops, none.
  const PendingBreakpoints &pending() const;
  const AheadOfFiles &ahead() const { return ahead_; }
  bool readsJitdump() const { return readsJitdump_; }
  // "user's", "core file", ...: for --status.
  static const char *describe(Kind kind);

private:
  Kind kind_;
  uint32_t id_;
  const PendingBreakpoints *pending_ = nullptr; // set for Kind::Compile only
  AheadOfFiles ahead_;
  bool readsJitdump_ = true;
};

// What the plugin did and said at one target's stops.
class StopHistory {
public:
  // A sync at `stop` begins: it is tried once, whatever comes of it.
  void syncing(const Stop &stop);
  // Whether a sync (of any kind) was at the stop `stopId` already.
  bool syncedAt(uint32_t stopId) const { return synced_ == stopId; }
  // The stop ID of the last sync. Calls nothing of LLDB (InterruptStops.h).
  std::optional<uint32_t> lastSynced() const { return synced_; }

  // True once per stop: the explanation of a compile stop LLDB showed (the
  // stop hook runs once per thread with a stop reason).
  bool explainWatchStopAt(uint32_t stopId);
  // An error of the syncs at stops is said once while it repeats: true when
  // `message` differs from the last one said.
  bool errorIsNew(const std::string &message);
  void syncSucceeded() { lastError_.clear(); }

  // "stop 12 (user's), synced", for --status.
  std::string status(uint32_t currentStopId) const;

private:
  std::optional<uint32_t> synced_;
  Stop::Kind syncedKind_ = Stop::Kind::User;
  uint32_t explainedAt_ = UINT32_MAX;
  std::string lastError_;
};

} // namespace jitsym::plugin
