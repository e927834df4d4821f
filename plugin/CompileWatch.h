// Pending breakpoints on JIT functions, resolved when the function is compiled.
//
// A perf map gives the debugger no stop when code is compiled, so a pending
// `breakpoint set -n NAME` would resolve only at the next stop, after NAME first
// ran. While a breakpoint of the target is pending, jitsym therefore stops the
// process at the entry of each write(2) call (runtimes append their perf map with
// write). For a write to the perf map, the callback reads the lines about to be
// written from the process and, when one may resolve a pending breakpoint,
// syncs: LLDB resolves the breakpoint from the new JIT module before the runtime
// can call NAME. Every other write resumes at once, its lines kept for the next
// sync. With no pending breakpoint the watch is removed, so it costs nothing.
#pragma once

#include <cstdint>
#include <optional>

#include "PendingBreakpoints.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// The arguments of a write(fd, buffer, count) call stopped at its first
// instruction.
struct WriteCall {
  int fd = -1;
  uint64_t buffer = 0;
  uint64_t count = 0;
};

class CompileWatch {
public:
  // Reads the target's pending breakpoints, then installs the watch when
  // `allowed` and some are pending, and removes it otherwise.
  void update(lldb::SBTarget &target, bool allowed, lldb::SBBreakpointHitCallback onWrite);
  // What the pending breakpoints wait for, as of the last update() or
  // refreshPending(): the write callback reads it instead of the breakpoints.
  const PendingBreakpoints &pending() const { return pending_; }
  // After a sync gave LLDB new symbols: some breakpoints may have resolved.
  void refreshPending(lldb::SBTarget &target) { pending_ = PendingBreakpoints::of(target, id_); }
  void remove(lldb::SBTarget &target);
  bool installed() const { return id_ != LLDB_INVALID_BREAK_ID; }
  // Locations the watch has (one per write function LLDB found).
  size_t locations(lldb::SBTarget &target) const;

  lldb::break_id_t id() const { return id_; }

  static std::optional<WriteCall> writeCallAt(lldb::SBThread &thread);

private:
  lldb::break_id_t id_ = LLDB_INVALID_BREAK_ID;
  PendingBreakpoints pending_;
};

} // namespace jitsym::plugin
