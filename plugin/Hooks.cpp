// The compile watch's callback and the resume and launch overrides.
#include "Hooks.h"

#include <chrono>

#include "InterruptStops.h"
#include "LldbFeatures.h"
#include "JvmSignals.h"
#include "Registry.h"

namespace jitsym::plugin {

void writeText(lldb::SBFile file, const std::string &text) {
  size_t written = 0;
  if (!text.empty() && file.IsValid())
    file.Write(reinterpret_cast<const uint8_t *>(text.data()), text.size(), &written);
}

namespace {

// Runs at each compile stop while the compile watch is on: the announcement
// hook, or the entry of a write(2) call. LLDB calls it as it handles the stop;
// returning false resumes without showing the stop.
bool onCompileStop(void *, lldb::SBProcess &process, lldb::SBThread &thread,
                   lldb::SBBreakpointLocation &) {
  const auto started = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(registryMutex());
  lldb::SBTarget target = process.GetTarget();
  TargetSync &state = registry().forTarget(target);
  // LLDB resumes from this stop when the callback returns: never the
  // interrupt-stop thread's to sync (which, when a slow callback outlasted
  // its wait, synced it as LLDB resumed, and LLDB then showed the stop as a
  // user breakpoint's in pending-breakpoint-at-compile under CI load).
  state.stops().syncing(Stop::at(process, Stop::Kind::Compile));
  // Nothing left to watch for: resume at once. The watch goes at the next stop
  // or resume; disabling it here, inside its own callback, makes LLDB report
  // the stop instead of resuming.
  if (!state.settings().autoSync || !state.settings().watchCompiles ||
      state.compileWatch().pending().empty())
    return false;
  lldb::SBDebugger debugger = target.GetDebugger();
  const PendingBreakpoints &pending = state.compileWatch().pending();
  std::optional<SyncReport> synced;
  if (CompileWatch::atAnnouncement(thread)) {
    llvm::Expected<SyncReport> report = state.syncAtAnnouncement(debugger, pending);
    if (!report)
      llvm::consumeError(report.takeError()); // the next stop's sync reports it
    else
      synced = std::move(*report);
  } else {
    llvm::Expected<std::optional<SyncReport>> report =
        state.syncBeforeWrite(debugger, thread, pending);
    if (!report)
      llvm::consumeError(report.takeError());
    else
      synced = std::move(*report);
  }
  CompileWatch &watch = state.compileWatch();
  if (synced && (synced->added > 0 || synced->removed > 0))
    watch.refreshPending(target);
  else
    watch.tellProducersOnce(target);
  watch.countStop(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  if (std::optional<std::string> note = watch.costNote(target))
    writeText(debugger.GetOutputFile(), *note); // once: the moment the stops begin to cost
  return false;
}

} // namespace

// The write family is not watched in a JVM: HotSpot's threads write all the
// time, often several at once (where LLDB has shown the watch's stop to the
// user instead of resuming); its agent calls the announcement hook.
void updateCompileWatch(TargetSync &state) {
  const TargetSettings &settings = state.settings();
  WatchPlan plan;
  plan.allowed = settings.autoSync && settings.watchCompiles;
  // Where a producer announces through the hook, its writes need no watch.
  plan.jvm = state.runsJvm();
  // The filter preloaded into the process is such a producer (WriteFilter.h).
  plan.watchWrites = !plan.jvm && !state.target().FindSymbols(kAnnouncedHook).GetSize() &&
                     !state.writeFilter().covers(state.target());
  // fwrite: not while a perf map's writes announce the code, nor in BEAM,
  // which flushes its jitdump before the code can run (runsBeam).
  plan.watchStdio = !state.followsPerfMap() && !runsBeam(state.target());
  // fprintf: a perf map written into a FILE that is not flushed (Mono's
  // --jitmap) has no write(2) before the code runs; its text is made from the
  // call's format and arguments.
  plan.watchPrintf = !runsBeam(state.target());
  plan.isJitModule = [&state](lldb::SBModule &module) { return state.ownsModule(module); };
  state.compileWatch().update(state.target(), std::move(plan), onCompileStop);
  state.writeFilter().follow(state.target(), state.compileWatch().installed());
}

void updateCompileWatchIfChanged(lldb::SBTarget target) {
  // Before a launch the launch's override reads the breakpoints (and a watch
  // made earlier would take the breakpoint ID the user's next one expects).
  lldb::SBProcess process = target.GetProcess();
  const lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  if (state != lldb::eStateRunning && state != lldb::eStateStopped)
    return;
  const uint64_t digest = CompileWatch::breakpointsDigest(target);
#if JITSYM_LLDB_HAS_API_MUTEX
  lldb::SBMutex api = target.GetAPIMutex();
  std::lock_guard<lldb::SBMutex> held(api);
#endif
  std::unique_lock<std::mutex> lock(registryMutex(), std::try_to_lock);
  if (!lock.owns_lock())
    return; // a sync or a command: looked at again later
  TargetSync &sync = registry().forTarget(target);
  if (!sync.compileWatch().sawBreakpoints(digest))
    updateCompileWatch(sync);
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

// A stop LLDB ran no stop hook at is synced before it is shown.
bool beforeInspect(void *baton, const char **) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (target.IsValid())
    syncUnsyncedStop(target);
  return false;
}

// As beforeResume, and a JVM gets its signals passed before it can raise one,
// and the filter is preloaded, reading from the start only if a breakpoint waits.
bool beforeLaunch(void *baton, const char **command) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (target.IsValid()) {
    std::lock_guard<std::mutex> lock(registryMutex());
    TargetSync &state = registry().forTarget(target);
    if (state.settings().jvmSignals && state.runsJvm()) {
      writeText(debugger->GetOutputFile(), passJvmSignalsBeforeLaunch(*debugger, target));
      state.takeJvmSignalsCheck(); // done: not again at the first stop
    }
    WriteFilter &filter = state.writeFilter();
    filter.beforeLaunch(target, state.settings().filterWrites && !state.runsJvm() &&
                                    !state.settings().portable);
    updateCompileWatch(state); // as beforeResume: the watch sees the filter to come
    filter.startsOn(target, state.compileWatch().installed());
  }
  return false;
}

} // namespace jitsym::plugin
