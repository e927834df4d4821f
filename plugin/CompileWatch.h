// Breakpoints in JIT code, brought up to date when code is compiled.
//
// A perf map gives the debugger no stop when code is compiled, so a pending
// `breakpoint set -n NAME` would resolve only at the next stop, after NAME first
// ran, and a location whose code was compiled again in place would lose its
// trap. While a breakpoint waits for JIT code or sits in it (PendingBreakpoints),
// jitsym therefore stops the process where code is announced:
//  - at jitsym_code_announced(), which every producer built on libjitsym-writer
//    calls once an announcement is in its files (the JVMTI agent, the Intel-API
//    collector, JITs linking the writer): the callback reads the files;
//  - at the entry of each write(2) call, for runtimes that append their perf map
//    with write (V8, tinyjit); not in a JVM, whose threads write all the time.
//    For a write to the perf map, the callback reads the lines about to be
//    written from the process. Every other write resumes at once;
//  - at the entry of each fwrite(3) call, for runtimes that write their jitdump
//    through a stdio FILE (V8's --perf-prof, into a 2 MiB buffer that reaches
//    the file only when full): for a FILE on the jitdump, the callback reads
//    what the FILE holds and the bytes about to be added to it. Not while a
//    perf map is followed: its writes announce the same code, for fewer stops
//    (BEAM writes a jitdump line entry in two fwrite calls). Nor in BEAM,
//    which flushes its jitdump's FILE after each module, before the module
//    can run: the flush's write(2)s announce it (runsBeam).
//  - at the entry of each fprintf(3) call (and _FORTIFY_SOURCE's
//    __fprintf_chk), for runtimes that fprintf their perf map into a FILE they
//    do not flush (Mono's --jitmap: no write(2) comes before the method runs):
//    for a FILE on the map, the callback makes the call's text from its
//    format and its register arguments (core formats/PrintfFormat.h) and reads
//    it after what the FILE holds. Not in BEAM.
// When what was announced may resolve a pending breakpoint or touches a
// location, the callback syncs: LLDB resolves the breakpoint from the new JIT
// module, or moves the location to the new code, before the runtime runs it.
// With nothing to watch for the watch is removed, so it costs nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <optional>

#include "PendingBreakpoints.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// A call of the write family stopped at its first instruction: write and
// writev append at the descriptor's position, pwrite and pwritev at `offset`,
// fwrite to its FILE's buffer (`buffered`), after what the buffer holds.
struct WriteCall {
  struct Piece {
    uint64_t address = 0, size = 0;
  };
  int fd = -1;
  std::vector<Piece> pieces;      // one, or writev's vectors in order
  std::optional<uint64_t> offset; // pwrite, pwritev
  bool buffered = false;          // fwrite, fprintf: `fd` is its FILE's descriptor
  std::optional<std::string> text; // fprintf: the text it makes, made here
  // What it writes, read from the process (at most 1 MiB of it).
  std::string bytes(lldb::SBProcess &process) const;
};

// The function every producer built on libjitsym-writer calls (DebuggerHook.h),
// and the list of what it is called for (core formats/WatchList.h).
constexpr const char *kAnnouncedHook = "jitsym_code_announced";
constexpr const char *kWatchList = "jitsym_watch";

// Whether the target's executable is BEAM, Erlang/OTP's emulator (beam.smp and
// its other builds, beam.debug.smp...). Its JIT writes a module's jitdump
// records with some 20 fwrite calls per function and fflush()es the FILE
// before the loader makes the module callable, so the write(2)s of that
// flush announce the code: stopping at each fwrite as well made an attach
// during BEAM's start (some 113,000 fwrite calls, for the modules it loads
// then) take minutes instead of seconds.
bool runsBeam(lldb::SBTarget &target);

struct WatchPlan {
  bool allowed = false;      // auto sync and the watch are on
  bool jvm = false;          // the target runs a JVM: Java names only
  bool watchWrites = false;  // the write family too (not in a JVM, nor where
                             // the hook announces)
  bool watchStdio = false;   // and fwrite (with the write family, while no
                             // perf map is followed, and not in BEAM)
  bool watchPrintf = false;  // and fprintf (with the write family, not in
                             // BEAM): Mono's map, never flushed
  std::function<bool(lldb::SBModule &)> isJitModule;
};

class CompileWatch {
public:
  // Reads what the target's breakpoints wait for, then installs the watch when
  // allowed and there is something, and removes it otherwise.
  void update(lldb::SBTarget &target, WatchPlan plan, lldb::SBBreakpointHitCallback onStop);
  // What the breakpoints wait for, as of the last update() or refreshPending():
  // the callback reads it instead of the breakpoints.
  const PendingBreakpoints &pending() const { return pending_; }
  // After a sync gave LLDB new symbols: some breakpoints may have resolved.
  // The producers in the process are told what is pending now.
  void refreshPending(lldb::SBTarget &target);
  // A digest of the target's breakpoints (not the watch's own): which, and
  // enabled or not. Changed since the last update or refresh: a breakpoint
  // was set, deleted or switched through the SB API, which no command
  // override sees. (Locations come and go as libraries load: not counted,
  // the watch follows them at stops as it always has.)
  static uint64_t breakpointsDigest(lldb::SBTarget &target);
  bool sawBreakpoints(uint64_t digest) const { return seen_ == digest; }
  // At a compile stop: the producers hear of the list if none of them has
  // yet (a JVM's agent loads after the launch's update; until it is told, it
  // announces everything).
  void tellProducersOnce(lldb::SBTarget &target) {
    if (told_ != target.GetProcess().GetUniqueID())
      tellProducers(target);
  }
  // Whether the thread stopped at the announcement hook (else at a write).
  static bool atAnnouncement(lldb::SBThread &thread);
  // Whether the process stopped for the watch and LLDB's internal breakpoints
  // only: no thread stopped for anything of the user's.
  bool onlyWatchStopped(lldb::SBProcess process) const;
  void remove(lldb::SBTarget &target);
  bool installed() const { return id_ != LLDB_INVALID_BREAK_ID; }
  // Locations the watch has (one per write function LLDB found).
  size_t locations(lldb::SBTarget &target) const;
  // How many times the process stopped for the watch so far (its cost).
  uint64_t stops(lldb::SBTarget &target) const;
  // The time jitsym's callback took at those stops (LLDB's own stop and
  // resume come on top), and whether the user was told what they cost.
  void countStop(double milliseconds) { callbackMilliseconds_ += milliseconds; }
  double callbackMilliseconds() const { return callbackMilliseconds_; }
  // The note said once per target when the stops begin to cost the program
  // (kCostlyStops of them), else nothing.
  std::optional<std::string> costNote(lldb::SBTarget &target);
  static constexpr uint64_t kCostlyStops = 200;

  lldb::break_id_t id() const { return id_; }

  // At a stop of the write family: the call, with the bytes it writes.
  static std::optional<WriteCall> writeCallAt(lldb::SBThread &thread);
  static const std::vector<const char *> &writeFunctions();
  static const std::vector<const char *> &stdioFunctions();
  static const std::vector<const char *> &printfFunctions();

private:
  // Writes pending_'s watch list into every producer of the process that has
  // one (libjitsym-writer's `jitsym_watch`), so that the hook is called only
  // for what may matter; a list of everything once the watch goes.
  void tellProducers(lldb::SBTarget &target);

  lldb::break_id_t id_ = LLDB_INVALID_BREAK_ID;
  bool watchesWrites_ = false;
  bool watchesStdio_ = false;
  bool watchesPrintf_ = false;
  uint64_t earlierStops_ = 0; // of the watch's earlier breakpoints
  WatchPlan plan_;
  PendingBreakpoints pending_;
  uint32_t told_ = 0; // SBProcess::GetUniqueID of the process last told, if any was
  double callbackMilliseconds_ = 0;
  uint64_t seen_ = 0; // breakpointsDigest at the last update or refresh
  bool costSaid_ = false;
};

} // namespace jitsym::plugin
