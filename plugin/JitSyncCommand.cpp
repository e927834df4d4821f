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

    // --auto, --jvm-signals, --watch-compiles, --portable: a switch for every
    // target of this debugger, and the default of the ones created later.
    auto switchAll = [&](bool TargetSettings::*field, const char *what) {
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
    };
    switch (options.action) {
    case Action::Auto:
      if (options.on) // and its trigger, if a user deleted it
        for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
          ensureStopHook(debugger, debugger.GetTargetAtIndex(i));
      return switchAll(&TargetSettings::autoSync, "automatic sync at every stop");
    case Action::JvmSignals:
      return switchAll(&TargetSettings::jvmSignals, "passing a JVM's own signals to it");
    case Action::WatchCompiles:
      return switchAll(&TargetSettings::watchCompiles,
                       "resolving pending breakpoints at compile time");
    case Action::Portable:
      return switchAll(&TargetSettings::portable,
                       "reaching local processes through the SB API only");
    default:
      break;
    }
    if (!target.IsValid()) {
      if (options.onStop)
        return true;
      result.SetError("jit-sync: no target selected");
      return false;
    }
    TargetSync &state = reg.forTarget(target);
    if (options.action == Action::Status) {
      updateCompileWatch(state);
      result.Printf("%s", state.status().c_str());
      if (state.settings().autoSync && !hasStopHook(debugger, target))
        result.Printf("stop hook: gone (deleted?): stops sync only at `bt` and jit-sync; "
                      "`jit-sync --auto on` puts it back\n");
      const PendingBreakpoints &pending = state.compileWatch.pending();
      if (state.compileWatch.installed())
        result.Printf("compile watch: on, %zu stop location(s)%s: %zu breakpoint(s) "
                      "pending, %zu location(s) in JIT code; %llu compile stop(s) so far\n",
                      state.compileWatch.locations(target),
                      state.runsJvm() ? " (the announcement hook only: a JVM)" : "",
                      pending.waiting(), pending.locations(),
                      static_cast<unsigned long long>(state.compileWatch.stops(target)));
      else if (!state.settings().watchCompiles)
        result.Printf("compile watch: off (--watch-compiles off)\n");
      else
        result.Printf("compile watch: off (no breakpoint waits for JIT code or sits in it)\n");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    if (options.action == Action::Clear) {
      state.reset();
      result.Printf("jit-sync: cleared the JIT modules of this target\n");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    // An attached JVM (or one launched before the plugin was loaded): its
    // signals, once, at the first stop.
    if (state.settings().jvmSignals && !state.jvmSignalsChecked && target.GetProcess().IsValid() &&
        state.runsJvm()) {
      state.jvmSignalsChecked = true;
      result.Printf("%s", passJvmSignalsToProcess(debugger, target).c_str());
    }
    if (options.onStop && !state.settings().autoSync)
      return true;
    // LLDB 22 shows a compile stop the watch's callback resumed when another
    // thread stopped at the same moment at an internal breakpoint whose
    // callback it runs synchronously only (the dynamic loader's, as a library
    // loads). Say what it is; resuming from here is not safe.
    // LLDB runs the stop hooks once per thread with a stop reason: said once.
    const uint32_t stopId = target.GetProcess().GetStopID();
    if (options.onStop && state.watchStopSaid != stopId &&
        state.compileWatch.onlyWatchStopped(target.GetProcess())) {
      state.watchStopSaid = stopId;
      writeText(debugger.GetOutputFile(),
                "jit-sync: this stop is jitsym's compile watch, shown by LLDB because a "
                "library was loading at the same moment: nothing of yours; 'continue'\n");
    }

    state.stopSynced = stopId; // done or failed, not tried again at this stop
    llvm::Expected<SyncReport> report = state.sync(debugger, options.sync);
    if (!report) {
      std::string message = "jit-sync: " + llvm::toString(report.takeError());
      if (options.onStop) {
        // Said once, not at every stop.
        if (message != state.lastStopError)
          writeText(debugger.GetErrorFile(), "error: " + message + "\n");
        state.lastStopError = message;
        return true;
      }
      result.SetError(message.c_str());
      return false;
    }
    state.lastStopError.clear();
    if (state.hasModules())
      exitWatcher().ensureRunning();

    updateCompileWatch(state);
    // At a stop, speak only of problems: the user asked for a backtrace.
    // A map's problem has a line; a jitdump's names its byte offset and record.
    auto say = [&](const std::string &text) {
      if (options.onStop)
        writeText(debugger.GetErrorFile(), text);
      else
        result.Printf("%s", text.c_str());
    };
    for (const Diagnostic &d : report->diagnostics)
      say("warning: jit-sync: " + d.str() + (d.line ? " (line skipped)" : "") + "\n");
    if (report->interrupted) // said even at a stop: the user pressed Ctrl-C
      say("jit-sync: " + report->note + "\n");
    else if (!options.onStop) {
      if (report->source.empty())
        result.Printf("jit-sync: %s\n", report->note.c_str());
      else
        result.Printf("%s\n", summary(*report).c_str());
    }
    if (options.exportDir) {
      llvm::Expected<ExportReport> exported = state.exportTo(debugger, *options.exportDir);
      if (!exported) {
        std::string message = "jit-sync: " + llvm::toString(exported.takeError());
        result.SetError(message.c_str());
        return false;
      }
      llvm::Expected<std::string> load = lldbQuoted(*options.exportDir + "/load.lldb");
      const std::string source =
          load ? "command source " + *load : llvm::toString(load.takeError());
      result.Printf("jit-sync: exported %llu symbols in %llu region%s to %s; in another "
                    "session: %s\n",
                    static_cast<unsigned long long>(exported->symbols),
                    static_cast<unsigned long long>(exported->regions),
                    exported->regions == 1 ? "" : "s", options.exportDir->c_str(),
                    source.c_str());
    }
    result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
    return true;
  }
};

} // namespace

lldb::SBCommandPluginInterface *newJitSyncCommand() { return new JitSyncCommand(); }

void syncAtStopHoldingRegistry(lldb::SBDebugger debugger, lldb::SBTarget target,
                               uint32_t stopId) {
  std::string error;
  std::optional<CommandOptions> onStop = parseCommandOptions({"--on-stop"}, error);
  if (!onStop)
    return;
  TargetSync &state = registry().forTarget(target);
  if (state.stopSynced == stopId)
    return; // the stop hook was first
  state.stopSynced = stopId; // tried once, whatever comes of it (--auto off: nothing)
  lldb::SBCommandReturnObject unused; // at a stop only problems are said, on the error stream
  JitSyncCommand::execute(debugger, target, *onStop, unused);
}

} // namespace jitsym::plugin
