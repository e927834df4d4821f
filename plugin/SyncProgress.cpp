#include "SyncProgress.h"

namespace jitsym::plugin {

SyncProgress::SyncProgress(lldb::SBDebugger debugger) : debugger_(debugger) {}

#if JITSYM_LLDB_HAS_PROGRESS
SyncProgress::~SyncProgress() {
  if (progress_)
    progress_->Finalize();
}

void SyncProgress::update(const std::string &step, uint64_t done, uint64_t total,
                          const char *unit) {
  if (!progress_ && std::chrono::steady_clock::now() - started_ < kMoment)
    return;
  if (total == 0)
    return;
  if (!progress_ || step != step_) {
    if (progress_)
      progress_->Finalize();
    // The step goes in the title: lldb-dap shows titles and drops details.
    const std::string title = "jit-sync: " + step;
    progress_ = std::make_unique<lldb::SBProgress>(title.c_str(), "", total, debugger_);
    step_ = step;
    reported_ = 0;
  }
  if (done <= reported_)
    return;
  const std::string what = std::to_string(done) + " of " + std::to_string(total) + " " + unit;
  progress_->Increment(done - reported_, what.c_str());
  reported_ = done;
}
#else
SyncProgress::~SyncProgress() = default;

void SyncProgress::update(const std::string &, uint64_t, uint64_t, const char *) {}
#endif

bool SyncProgress::interruptRequested() {
  return debugger_.InterruptRequested() || debugger_.GetCommandInterpreter().WasInterrupted();
}

} // namespace jitsym::plugin
