// The compile watch's filter inside the process (agents/watch): where a
// runtime with no hook of its own writes its perf map or jitdump with write,
// fwrite or fprintf (V8 in Node, Deno and Bun; BEAM; Mono; CPython), the
// watch's stop at each write (hundreds a second while code is compiled: Node
// ran 54 times slower with one pending breakpoint) becomes a stop at the
// announcement hook, only when a write announces code a breakpoint may want.
//
// With `jit-sync --filter-writes on` (the default), `process launch` and
// `run` preload libjitsym-watch.so (LD_PRELOAD, before the user's own), which
// defines the write functions for the whole program. The watch then has no locations at
// the write functions: the filter's jitsym_code_announced is its hook. The
// plugin turns the filter's reading off (jitsym_filter_generation 0) while no
// breakpoint waits, and on again with a new number. A process attached to,
// or launched through the SB API (SBTarget::Launch, lldb-dap), keeps a stop
// per write.
#pragma once

#include <cstdint>
#include <string>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class WriteFilter {
public:
  // Before a launch by command: the filter goes into the launch's LD_PRELOAD
  // when `on` (and the target runs on this machine's architecture), and out
  // of it when not. A sanitizer runtime the program links (ASan's must be the
  // first library) is preloaded before it.
  void beforeLaunch(lldb::SBTarget &target, bool on);
  // Then, once the watch knows whether a breakpoint waits: the preloaded
  // filter reads from its start only if one does (JITSYM_FILTER_START in the
  // launch's environment), so a program no breakpoint waits in runs as
  // without it (a wanted announcement flushes the runtime's FILE).
  void startsOn(lldb::SBTarget &target, bool watching);
  // Whether the watch can leave the writes to the filter: it is in the
  // process, or preloaded for the launch to come.
  bool covers(lldb::SBTarget &target);
  // Turns its reading on while the watch is (a breakpoint waits), off otherwise.
  void follow(lldb::SBTarget &target, bool watching);
  // One line for `jit-sync --status`, or nothing.
  std::string status(lldb::SBTarget &target);

private:
  // The filter's module in the target's process, if it is there.
  lldb::SBModule module(lldb::SBTarget &target);

  bool preloading_ = false; // put into the launch's LD_PRELOAD
  std::string addedRuntime_; // a sanitizer runtime put in front of it there
  bool launchToCome_ = false;
  uint32_t preloadedProcess_ = 0; // SBProcess::GetUniqueID of the process launched so
  uint32_t process_ = 0;    // SBProcess::GetUniqueID of the process written to
  bool startsOn_ = true;    // the preloaded filter's state as its process starts
  uint32_t generation_ = 1; // as the filter starts: on
  uint32_t generations_ = 1;
};

} // namespace jitsym::plugin
