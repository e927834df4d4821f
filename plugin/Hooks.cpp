// The compile watch's callback and the resume and launch overrides.
#include "Hooks.h"

#include "JvmSignals.h"
#include "Registry.h"

namespace jitsym::plugin {

void writeText(lldb::SBFile file, const std::string &text) {
  size_t written = 0;
  if (!text.empty() && file.IsValid())
    file.Write(reinterpret_cast<const uint8_t *>(text.data()), text.size(), &written);
}

namespace {

// Runs at the entry of each write(2) while the compile watch is on. LLDB calls it
// as it handles the stop; returning false resumes without showing the stop.
bool onRuntimeWrite(void *, lldb::SBProcess &process, lldb::SBThread &thread,
                    lldb::SBBreakpointLocation &) {
  std::lock_guard<std::mutex> lock(registryMutex());
  lldb::SBTarget target = process.GetTarget();
  TargetSync &state = registry().forTarget(target);
  // Nothing left to resolve: resume at once. The watch goes at the next stop or
  // resume; disabling it here, inside its own callback, makes LLDB report the
  // stop instead of resuming.
  if (!state.settings().autoSync || !state.settings().watchCompiles || state.compileWatch.pending().empty())
    return false;
  lldb::SBDebugger debugger = target.GetDebugger();
  llvm::Expected<std::optional<SyncReport>> report =
      state.syncBeforeWrite(debugger, thread, state.compileWatch.pending());
  if (!report)
    llvm::consumeError(report.takeError()); // the next stop's sync reports it
  else if (*report && (*report)->added > 0)
    state.compileWatch.refreshPending(target);
  return false;
}

} // namespace

// Not for a JVM: its agent writes a jitdump, which is read at stops, and
// HotSpot's threads write all the time, often several at once (where LLDB
// has shown the watch's stop to the user instead of resuming).
void updateCompileWatch(TargetSync &state) {
  const bool jvm = state.runsJvm();
  state.compileWatch.update(state.target(), state.settings().autoSync && state.settings().watchCompiles && !jvm,
                            onRuntimeWrite);
}

// A breakpoint set at the prompt since the last stop is seen before the
// process runs on.
bool beforeResume(void *baton, const char **) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (!target.IsValid())
    return false;
  std::lock_guard<std::mutex> lock(registryMutex());
  updateCompileWatch(registry().forTarget(target));
  return false;
}

// As beforeResume, and a JVM gets its signals passed before it can raise one.
bool beforeLaunch(void *baton, const char **command) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (target.IsValid()) {
    std::lock_guard<std::mutex> lock(registryMutex());
    TargetSync &state = registry().forTarget(target);
    if (state.settings().jvmSignals && state.runsJvm()) {
      writeText(debugger->GetOutputFile(), passJvmSignalsBeforeLaunch(*debugger, target));
      state.jvmSignalsChecked = true;
    }
  }
  return beforeResume(baton, command);
}

} // namespace jitsym::plugin
