// The progress of a long sync as LLDB progress events (SBProgress), which the
// command line's status line and IDEs (lldb-dap's progressStart/Update/End)
// show. A sync that ends within a moment reports nothing: the first event is
// sent once the sync has run for kMoment, so the sync at every stop stays
// silent. It is also where a long sync asks whether the user interrupted it.
// LLDB 19 has no SBProgress: there a sync sends no events (LldbFeatures.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "LldbFeatures.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class SyncProgress {
public:
  static constexpr std::chrono::milliseconds kMoment{250};

  explicit SyncProgress(lldb::SBDebugger debugger);
  ~SyncProgress();
  SyncProgress(const SyncProgress &) = delete;
  SyncProgress &operator=(const SyncProgress &) = delete;

  // `done` of `total` units of one step ("copying remote-linux:/tmp/perf-1.map",
  // counted in bytes; "giving LLDB the symbols of ...", in symbols). A new
  // step ends the one before.
  void update(const std::string &step, uint64_t done, uint64_t total, const char *unit);

  // Whether the user asked the sync to stop: Ctrl-C at LLDB's command line
  // (the running command is interrupted) or SBDebugger::RequestInterrupt.
  bool interruptRequested();

private:
  lldb::SBDebugger debugger_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
#if JITSYM_LLDB_HAS_PROGRESS
  std::unique_ptr<lldb::SBProgress> progress_;
#endif
  std::string step_;
  uint64_t reported_ = 0;
};

} // namespace jitsym::plugin
