// The `jit-sync` command: one action per invocation (CommandOptions.h), run
// on the selected target's TargetSync under the registry lock.
#include "JitSyncCommand.h"

#include <sstream>

#include "CommandOptions.h"
#include "Hooks.h"
#include "JvmSignals.h"
#include "Registry.h"
#include "StopHook.h"
#include "jitsym/objects/LldbCommand.h"

namespace jitsym::plugin {
namespace {

std::string summary(const SyncReport &r) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << "jit-sync: " << r.source << ": " << r.symbols << " symbols in " << r.regions
      << (r.regions == 1 ? " region" : " regions") << ", " << r.added << " new";
  if (r.removed)
    out << ", " << r.removed << " replaced";
  if (r.shadowed)
    out << ", " << r.shadowed << " skipped (file-backed or unmapped)";
  if (r.namedByJitLoader)
    out << ", " << r.namedByJitLoader << " named by LLDB's GDB JIT loader";
  out << ", " << r.milliseconds << " ms";
  if (!r.note.empty())
    out << "; " << r.note;
  return out.str();
}

// "warning: jit-sync: FILE:LINE: problem (line skipped)": a map's problem has
// a line; a jitdump's names its byte offset and record.
std::string warning(const Diagnostic &d) {
  return "warning: jit-sync: " + d.str() + (d.line ? " (line skipped)" : "") + "\n";
}

// An attached JVM (or one launched before the plugin was loaded) gets its
// signals passed, once, at the first sync: what was done, for the user.
std::string checkJvmSignals(lldb::SBDebugger &debugger, TargetSync &state) {
  lldb::SBTarget &target = state.target();
  if (!state.settings().jvmSignals || !target.GetProcess().IsValid() || !state.runsJvm() ||
      !state.takeJvmSignalsCheck())
    return "";
  return passJvmSignalsToProcess(debugger, target);
}

// After a sync that worked: exits are watched while there are modules, and
// the compile watch follows the breakpoints.
void afterSync(TargetSync &state) {
  if (state.hasModules())
    exitWatcher().ensureRunning();
  updateCompileWatch(state);
}

bool status(lldb::SBDebugger &debugger, TargetSync &state,
            lldb::SBCommandReturnObject &result) {
  lldb::SBTarget &target = state.target();
  updateCompileWatch(state);
  result.Printf("%s", state.status().c_str());
  if (state.settings().autoSync && !hasStopHook(debugger, target))
    result.Printf("stop hook: gone (deleted?): stops sync only at `bt` and jit-sync; "
                  "`jit-sync --auto on` puts it back\n");
  CompileWatch &watch = state.compileWatch();
  const PendingBreakpoints &pending = watch.pending();
  if (watch.installed())
    result.Printf("compile watch: on, %zu stop location(s)%s: %zu breakpoint(s) "
                  "pending, %zu location(s) in JIT code; %llu compile stop(s) so far, "
                  "%.1f ms in jitsym\n",
                  watch.locations(target),
                  state.runsJvm() ? " (the announcement hook only: a JVM)" : "",
                  pending.waiting(), pending.locations(),
                  static_cast<unsigned long long>(watch.stops(target)),
                  watch.callbackMilliseconds());
  else if (!state.settings().watchCompiles)
    result.Printf("compile watch: off (--watch-compiles off)\n");
  else
    result.Printf("compile watch: off (no breakpoint waits for JIT code or sits in it)\n");
  result.Printf("%s", state.writeFilter().status(target).c_str());
  if (lldb::SBProcess process = target.GetProcess(); process.IsValid())
    result.Printf("%s", state.stops().status(process.GetStopID()).c_str());
  result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
  return true;
}

// A sync at a stop (the stop hook's `jit-sync --on-stop`, or a stop LLDB ran
// no hook at): the user asked for a backtrace, so only problems are said, on
// the debugger's error stream; an error that repeats is said once. `result`
// takes what the first stop in a JVM does with its signals.
void syncAtStop(lldb::SBDebugger debugger, TargetSync &state, const Stop &stop,
                lldb::SBCommandReturnObject &result) {
  result.Printf("%s", checkJvmSignals(debugger, state).c_str());
  if (!state.settings().autoSync)
    return;
  // LLDB 22 shows a compile stop the watch's callback resumed when another
  // thread stopped at the same moment at an internal breakpoint whose
  // callback it runs synchronously only (the dynamic loader's, as a library
  // loads). Say what it is; resuming from here is not safe.
  lldb::SBProcess process = state.target().GetProcess();
  if (state.compileWatch().onlyWatchStopped(process) &&
      state.stops().explainWatchStopAt(stop.id()))
    writeText(debugger.GetOutputFile(),
              "jit-sync: this stop is jitsym's compile watch, shown by LLDB because a "
              "library was loading at the same moment: nothing of yours; 'continue'\n");
  llvm::Expected<SyncReport> report = state.sync(debugger, SyncOptions{}, stop);
  if (!report) {
    const std::string message = "jit-sync: " + llvm::toString(report.takeError());
    if (state.stops().errorIsNew(message))
      writeText(debugger.GetErrorFile(), "error: " + message + "\n");
    return;
  }
  state.stops().syncSucceeded();
  afterSync(state);
  for (const Diagnostic &d : report->diagnostics)
    writeText(debugger.GetErrorFile(), warning(d));
  if (report->interrupted) // said even at a stop: the user pressed Ctrl-C
    writeText(debugger.GetErrorFile(), "jit-sync: " + report->note + "\n");
}

class JitSyncCommand : public lldb::SBCommandPluginInterface {
public:
  bool DoExecute(lldb::SBDebugger debugger, char **args,
                 lldb::SBCommandReturnObject &result) override {
    std::vector<std::string> words;
    for (size_t i = 0; args && args[i]; ++i)
      words.push_back(args[i]);
    std::string error;
    std::optional<CommandOptions> parsed = parseCommandOptions(words, error);
    if (!parsed) {
      result.SetError(("jit-sync: " + error).c_str());
      return false;
    }
    const CommandOptions &options = *parsed;
    using Action = CommandOptions::Action;
    if (options.action == Action::Help) {
      result.Printf("%s\n\nSyntax: %s\n", jitSyncHelp(), jitSyncSyntax());
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    std::lock_guard<std::mutex> lock(registryMutex());
    return execute(debugger, debugger.GetSelectedTarget(), options, result);
  }

  // One action on `target`, under the registry lock.
  static bool execute(lldb::SBDebugger debugger, lldb::SBTarget target,
                      const CommandOptions &options, lldb::SBCommandReturnObject &result) {
    using Action = CommandOptions::Action;
    Registry &reg = registry();
    reg.prune();
    if (isSwitch(options.action))
      return switchAll(debugger, options, result);
    if (!target.IsValid()) {
      if (options.onStop)
        return true;
      result.SetError("jit-sync: no target selected");
      return false;
    }
    TargetSync &state = reg.forTarget(target);
    if (options.onStop) {
      lldb::SBProcess process = target.GetProcess();
      syncAtStop(debugger, state, Stop::at(process, Stop::Kind::User), result);
      return true;
    }
    if (options.action == Action::Status)
      return status(debugger, state, result);
    if (options.action == Action::Clear) {
      state.reset();
      result.Printf("jit-sync: cleared the JIT modules of this target\n");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    if (!syncTyped(debugger, state, options.sync, result))
      return false;
    if (options.exportDir && !exportTo(debugger, state, *options.exportDir, result))
      return false;
    result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
    return true;
  }

private:
  static bool isSwitch(CommandOptions::Action action) {
    using Action = CommandOptions::Action;
    return action == Action::Auto || action == Action::JvmSignals ||
           action == Action::WatchCompiles || action == Action::FilterWrites ||
           action == Action::Portable;
  }

  // --auto, --jvm-signals, --watch-compiles, --portable: a switch for every
  // target of this debugger, and the default of the ones created later.
  static bool switchAll(lldb::SBDebugger debugger, const CommandOptions &options,
                        lldb::SBCommandReturnObject &result) {
    using Action = CommandOptions::Action;
    bool TargetSettings::*field = &TargetSettings::autoSync;
    const char *what = "automatic sync at every stop";
    switch (options.action) {
    case Action::JvmSignals:
      field = &TargetSettings::jvmSignals;
      what = "passing a JVM's own signals to it";
      break;
    case Action::WatchCompiles:
      field = &TargetSettings::watchCompiles;
      what = "resolving pending breakpoints at compile time";
      break;
    case Action::FilterWrites:
      field = &TargetSettings::filterWrites;
      what = "filtering a runtime's announcements inside its process";
      break;
    case Action::Portable:
      field = &TargetSettings::portable;
      what = "reaching local processes through the SB API only";
      break;
    default: // Auto, and its trigger, if a user deleted it
      if (options.on)
        for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
          ensureStopHook(debugger, debugger.GetTargetAtIndex(i));
      break;
    }
    Registry &reg = registry();
    reg.defaults().*field = options.on;
    for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i) {
      TargetSync &state = reg.forTarget(debugger.GetTargetAtIndex(i));
      TargetSettings changed = state.settings();
      changed.*field = options.on;
      state.apply(changed);
      updateCompileWatch(state);
    }
    result.Printf("jit-sync: %s is %s\n", what, options.on ? "on" : "off");
    result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
    return true;
  }

  // `jit-sync` typed: its summary, its problems, or its error.
  static bool syncTyped(lldb::SBDebugger debugger, TargetSync &state, const SyncOptions &sync,
                        lldb::SBCommandReturnObject &result) {
    result.Printf("%s", checkJvmSignals(debugger, state).c_str());
    lldb::SBProcess process = state.target().GetProcess();
    llvm::Expected<SyncReport> report =
        state.sync(debugger, sync, Stop::at(process, Stop::Kind::Command));
    if (!report) {
      result.SetError(("jit-sync: " + llvm::toString(report.takeError())).c_str());
      return false;
    }
    state.stops().syncSucceeded();
    afterSync(state);
    for (const Diagnostic &d : report->diagnostics)
      result.Printf("%s", warning(d).c_str());
    if (report->interrupted || report->source.empty())
      result.Printf("jit-sync: %s\n", report->note.c_str());
    else
      result.Printf("%s\n", summary(*report).c_str());
    return true;
  }

  // --export DIR, after the sync.
  static bool exportTo(lldb::SBDebugger debugger, TargetSync &state, const std::string &dir,
                       lldb::SBCommandReturnObject &result) {
    llvm::Expected<ExportReport> exported = state.exportTo(debugger, dir);
    if (!exported) {
      result.SetError(("jit-sync: " + llvm::toString(exported.takeError())).c_str());
      return false;
    }
    llvm::Expected<std::string> load = lldbQuoted(dir + "/load.lldb");
    const std::string source = load ? "command source " + *load : llvm::toString(load.takeError());
    result.Printf("jit-sync: exported %llu symbols in %llu region%s to %s; in another "
                  "session: %s\n",
                  static_cast<unsigned long long>(exported->symbols),
                  static_cast<unsigned long long>(exported->regions),
                  exported->regions == 1 ? "" : "s", dir.c_str(), source.c_str());
    return true;
  }
};

} // namespace

lldb::SBCommandPluginInterface *newJitSyncCommand() { return new JitSyncCommand(); }

void syncAtStopHoldingRegistry(lldb::SBDebugger debugger, lldb::SBTarget target,
                               uint32_t stopId) {
  TargetSync &state = registry().forTarget(target);
  if (state.stops().syncedAt(stopId))
    return; // the stop hook was first
  // An interrupt's stop, or one whose stop hook has not run yet (`bt` typed
  // at once, or a stop LLDB runs none at).
  lldb::SBProcess process = target.GetProcess();
  lldb::SBEvent event = process.GetStopEventForStopID(stopId);
  const bool interrupted = event.IsValid() && lldb::SBProcess::GetInterruptedFromEvent(event);
  const Stop stop = Stop::at(process, interrupted ? Stop::Kind::Interrupt : Stop::Kind::User);
  state.stops().syncing(stop); // tried once, whatever comes of it (--auto off: nothing)
  lldb::SBCommandReturnObject unused; // at a stop only problems are said, on the error stream
  syncAtStop(debugger, state, stop, unused);
}

} // namespace jitsym::plugin
