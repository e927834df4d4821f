// Entry point of libjitsym-lldb.so (`plugin load`): registers `jit-sync` and the
// stop hook that keeps every target's JIT symbols current with no user command.
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <thread>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "JvmSignals.h"
#include "TargetSync.h"
#include "jitsym/LldbCommand.h"
#include "jitsym/PrivateDir.h"
#include "lldb/API/LLDB.h"

namespace lldb {
__attribute__((visibility("default"))) bool PluginInitialize(lldb::SBDebugger debugger);
}

namespace jitsym::plugin {
namespace {

constexpr const char *kStopHookCommand = "jit-sync --on-stop";

const char *kHelp = "Load JIT symbols (and source lines, unwind tables) from the process's perf map and "
                    "jitdump into LLDB and keep them current.";
const char *kSyntax =
    "jit-sync [--map PATH] [--jitdump PATH] [--dir SNAPSHOT] [--force] [--export DIR]\n"
    "jit-sync --auto on|off\n"
    "jit-sync --watch-compiles on|off\n"
    "jit-sync --jvm-signals on|off\n"
    "jit-sync --status\n"
    "jit-sync --clear\n"
    "\n"
    "With no option, reads what the runtime appended since the last sync to\n"
    "the perf map of the selected target's process (found at\n"
    "/proc/PID/root/tmp/perf-NSPID.map, /tmp/perf-PID.map or the Android\n"
    "locations) and to its jitdump (the file jit-PID.dump the process mapped\n"
    "executable, as perf finds it; records still in the process's stdio buffer\n"
    "are read from its memory), and updates the target's JIT modules, then\n"
    "prints one line: sources, symbols, regions, what is new, time taken.\n"
    "Code both files announce is named by the jitdump, which also gives\n"
    "source lines (image lookup, bt, breakpoint set -f FILE -l LINE) and\n"
    "unwind tables (exact backtraces from any instruction of such code).\n"
    "\n"
    "  --map PATH      follow this perf map instead (renamed files, core files)\n"
    "  --jitdump PATH  follow this jitdump instead\n"
    "  --dir SNAPSHOT  follow the files a 'jitsym snapshot' saved\n"
    "  --export DIR    after the sync, write the JIT symbols as files another\n"
    "               session loads: 'command source DIR/load.lldb', or per region\n"
    "               'target symbols add' of its JSON file after its object\n"
    "\n"
    "A remote target (platform select remote-linux/remote-android, platform\n"
    "connect) is synced the same way: the files are looked for and read on\n"
    "the remote side, through the platform connection (its file API, its shell\n"
    "for binary bytes, else whole-file downloads), copying only what was\n"
    "appended since the last sync; /data/data/PKG and /data/local/tmp are\n"
    "tried as on Android, and --map and --jitdump name remote paths.\n"
    "\n"
    "A core file (lldb -c CORE) is synced the same way: the JIT memory is\n"
    "taken from the core's own memory map (an ELF core's program headers and\n"
    "NT_FILE note), and files that do not match the core are refused. With\n"
    "neither --map nor --jitdump, a core uses the jitdump it had mapped if the\n"
    "file is still there, and /tmp/perf-PID.map if written before the core.\n"
    "  --force      trust files not owned by the process's user or root\n"
    "  --auto on|off  sync at every stop (default on, for every target)\n"
    "  --watch-compiles on|off  while a breakpoint is pending, stop briefly at\n"
    "               each write(2) of the process so a JIT function's breakpoint\n"
    "               resolves when it is compiled, before it runs (default on;\n"
    "               about 1.2 ms a write, only while a breakpoint is pending)\n"
    "  --jvm-signals on|off  when the target is a JVM, pass the signals HotSpot\n"
    "               raises itself (SIGSEGV SIGBUS SIGILL SIGFPE SIGUSR2) without\n"
    "               stopping, at launch or at the first stop after an attach,\n"
    "               unless you set the handling of one of them (default on)\n"
    "  --status     show what is being followed for the selected target\n"
    "  --clear      remove this target's JIT modules and forget the files\n"
    "\n"
    "Sync at every stop runs as the stop hook '" "jit-sync --on-stop" "' and\n"
    "prints only problems.";

struct Options {
  SyncOptions sync;
  std::optional<std::string> exportDir;
  bool onStop = false, status = false, clear = false;
  std::optional<bool> autoMode;
  std::optional<bool> watchMode;
  std::optional<bool> jvmSignalsMode;
};

class Registry {
public:
  TargetSync &forTarget(lldb::SBTarget target) {
    for (auto &state : states_)
      if (state->matches(target))
        return *state;
    states_.push_back(std::make_unique<TargetSync>(target));
    states_.back()->autoSync = defaultAuto_;
    states_.back()->watchCompiles = defaultWatch_;
    states_.back()->jvmSignals = defaultJvmSignals_;
    return *states_.back();
  }
  void setDefaultAuto(bool on) { defaultAuto_ = on; }
  void setDefaultWatch(bool on) { defaultWatch_ = on; }
  void setDefaultJvmSignals(bool on) { defaultJvmSignals_ = on; }
  // Targets deleted by the user (LLDB marks them invalid): their state goes too.
  // Other debuggers' targets stay: one process may host several debuggers.
  void prune() {
    std::vector<std::unique_ptr<TargetSync>> kept;
    for (auto &state : states_)
      if (state->target().IsValid())
        kept.push_back(std::move(state));
    states_ = std::move(kept);
  }
  void resetAll() {
    for (auto &state : states_)
      state->reset();
  }
  // The targets that have JIT modules, with the process they were made for.
  std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> withModules() {
    std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> found;
    for (auto &state : states_)
      if (state->hasModules() && state->process())
        found.emplace_back(state->target(), *state->process());
    return found;
  }
  // Forgets what `target` had for `process` (gone: no stop hook runs at exit)
  // and hands back its modules, unless the target has moved on to another
  // process since. Calls nothing of LLDB.
  std::unique_ptr<RegionModules> forgetExited(const lldb::SBTarget &target,
                                              const ProcessIdentity &process) {
    for (auto &state : states_)
      if (state->matches(target) && state->hasModules() && state->process() == process)
        return state->resetKeepingModules();
    return nullptr;
  }

private:
  std::vector<std::unique_ptr<TargetSync>> states_;
  bool defaultAuto_ = true;
  bool defaultWatch_ = true;
  bool defaultJvmSignals_ = true;
};

Registry &registry() {
  static Registry *instance = new Registry(); // lives as long as liblldb
  return *instance;
}
std::mutex &registryMutex() {
  static std::mutex *m = new std::mutex();
  return *m;
}

// Watches for processes that exited, a few times a second, while any target has
// JIT modules. LLDB's command line consumes process events itself, so there is no
// event to wait for; the check is a state read. No LLDB call is made under the
// registry lock here: LLDB holds a target's API lock while it runs the stop
// hook or the compile watch's callback, which then wait for the registry lock,
// and this thread would wait for the API lock in any call on that target.
class ExitWatcher {
public:
  void ensureRunning() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (thread_.joinable() || stopping_)
      return;
    thread_ = std::thread([this] { loop(); });
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable())
      thread_.join();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) {
      lock.unlock();
      dropExited();
      lock.lock();
    }
  }
  // Targets whose process is gone keep no JIT modules.
  static void dropExited() {
    std::vector<std::pair<lldb::SBTarget, ProcessIdentity>> watched;
    {
      std::lock_guard<std::mutex> registryLock(registryMutex());
      watched = registry().withModules();
    }
    for (auto &[target, process] : watched) {
      lldb::SBProcess live = target.GetProcess();
      lldb::StateType s = live.IsValid() ? live.GetState() : lldb::eStateInvalid;
      if (s != lldb::eStateExited && s != lldb::eStateDetached && s != lldb::eStateInvalid)
        continue;
      std::unique_ptr<RegionModules> modules;
      {
        std::lock_guard<std::mutex> registryLock(registryMutex());
        modules = registry().forgetExited(target, process);
      }
      if (modules)
        modules->removeAll(target);
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stopping_ = false;
};

ExitWatcher &exitWatcher() {
  static ExitWatcher *instance = new ExitWatcher(); // never destroyed: see stop()
  return *instance;
}

// The watcher's thread runs this library's code: it ends before the library is
// unloaded (SBDebugger::Terminate, as at Python's exit, unloads plugins without
// destroying the debuggers first) or the process exits.
__attribute__((destructor)) void stopExitWatcherAtUnload() { exitWatcher().stop(); }

bool parseOptions(char **args, Options &options, std::string &error) {
  for (size_t i = 0; args && args[i]; ++i) {
    std::string arg = args[i];
    auto value = [&](const char *what) -> const char * {
      if (!args[i + 1]) {
        error = arg + " needs " + what;
        return nullptr;
      }
      return args[++i];
    };
    // The path after --map or --jitdump, into `path`; false if there is none.
    auto pathValue = [&](const char *flag, std::optional<std::string> &path) {
      const char *v = value("a path");
      if (v && !*v)
        error = std::string(flag) + " needs a path, not an empty string";
      if (!v || !*v)
        return false;
      path = v;
      return true;
    };
    if (arg == "--map" || arg == "-m") {
      if (!pathValue("--map", options.sync.mapPath))
        return false;
    } else if (arg == "--jitdump" || arg == "-j") {
      if (!pathValue("--jitdump", options.sync.jitdumpPath))
        return false;
    } else if (arg == "--dir" || arg == "-d") {
      if (!pathValue("--dir", options.sync.snapshotDir))
        return false;
    } else if (arg == "--export" || arg == "-e") {
      if (!pathValue("--export", options.exportDir))
        return false;
    } else if (arg == "--force" || arg == "-f") {
      options.sync.force = true;
    } else if (arg == "--auto" || arg == "-a" || arg == "--watch-compiles" || arg == "-w" ||
               arg == "--jvm-signals") {
      const char *v = value("'on' or 'off'");
      if (!v)
        return false;
      if (std::strcmp(v, "on") != 0 && std::strcmp(v, "off") != 0) {
        error = arg + " takes 'on' or 'off', not '" + std::string(v) + "'";
        return false;
      }
      bool on = std::strcmp(v, "on") == 0;
      if (arg == "--jvm-signals")
        options.jvmSignalsMode = on;
      else
        (arg == "--auto" || arg == "-a" ? options.autoMode : options.watchMode) = on;
    } else if (arg == "--status" || arg == "-s") {
      options.status = true;
    } else if (arg == "--clear" || arg == "-c") {
      options.clear = true;
    } else if (arg == "--on-stop") {
      options.onStop = true;
    } else {
      error = "unknown option '" + arg + "'; see 'help jit-sync'";
      return false;
    }
  }
  return true;
}

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
  out << ", " << r.milliseconds << " ms";
  return out.str();
}

// Runs at the entry of each write(2) while the compile watch is on. LLDB calls it
// as it handles the stop; returning false resumes without showing the stop.
// Text for the user outside a command's result: LLDB shows neither the output
// nor the errors of a stop hook's commands.
void writeText(lldb::SBFile file, const std::string &text) {
  size_t written = 0;
  if (!text.empty() && file.IsValid())
    file.Write(reinterpret_cast<const uint8_t *>(text.data()), text.size(), &written);
}

bool onRuntimeWrite(void *, lldb::SBProcess &process, lldb::SBThread &thread,
                    lldb::SBBreakpointLocation &) {
  std::lock_guard<std::mutex> lock(registryMutex());
  lldb::SBTarget target = process.GetTarget();
  TargetSync &state = registry().forTarget(target);
  // Nothing left to resolve: resume at once. The watch goes at the next stop or
  // resume; disabling it here, inside its own callback, makes LLDB report the
  // stop instead of resuming.
  if (!state.autoSync || !state.watchCompiles || state.compileWatch.pending().empty())
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

// The compile watch is wanted while automatic sync is on and a breakpoint of the
// user's is pending; checked at every stop and before every resume.
// Not for a JVM: its agent writes a jitdump, which is read at stops, and
// HotSpot's threads write all the time, often several at once (where LLDB
// has shown the watch's stop to the user instead of resuming).
void updateCompileWatch(TargetSync &state) {
  const bool jvm = state.runsJvm();
  state.compileWatch.update(state.target(), state.autoSync && state.watchCompiles && !jvm,
                            onRuntimeWrite);
}

// Before `process continue` and `process launch` (and their aliases) run: a
// breakpoint set at the prompt since the last stop is seen before the process
// runs on. Returning false lets the command run.
bool beforeResume(void *baton, const char **) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (!target.IsValid())
    return false;
  std::lock_guard<std::mutex> lock(registryMutex());
  updateCompileWatch(registry().forTarget(target));
  return false;
}

// Before `process launch`: as beforeResume, and a JVM gets its signals passed
// before it can raise one.
bool beforeLaunch(void *baton, const char **command) {
  auto *debugger = static_cast<lldb::SBDebugger *>(baton);
  lldb::SBTarget target = debugger->GetSelectedTarget();
  if (target.IsValid()) {
    std::lock_guard<std::mutex> lock(registryMutex());
    TargetSync &state = registry().forTarget(target);
    if (state.jvmSignals && state.runsJvm()) {
      writeText(debugger->GetOutputFile(), passJvmSignalsBeforeLaunch(*debugger, target));
      state.jvmSignalsChecked = true;
    }
  }
  return beforeResume(baton, command);
}

class JitSyncCommand : public lldb::SBCommandPluginInterface {
public:
  bool DoExecute(lldb::SBDebugger debugger, char **args,
                 lldb::SBCommandReturnObject &result) override {
    Options options;
    std::string error;
    if (!parseOptions(args, options, error)) {
      result.SetError(("jit-sync: " + error).c_str());
      return false;
    }
    std::lock_guard<std::mutex> lock(registryMutex());
    Registry &reg = registry();
    reg.prune();
    lldb::SBTarget target = debugger.GetSelectedTarget();

    // --auto, --jvm-signals, --watch-compiles: a switch for every target of
    // this debugger, and the default of the ones created later.
    auto switchAll = [&](bool on, auto setDefault, auto apply, const char *what) {
      (reg.*setDefault)(on);
      for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
        apply(reg.forTarget(debugger.GetTargetAtIndex(i)), on);
      result.Printf("jit-sync: %s is %s\n", what, on ? "on" : "off");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    };
    if (options.autoMode)
      return switchAll(*options.autoMode, &Registry::setDefaultAuto,
                       [](TargetSync &state, bool on) { state.autoSync = on; },
                       "automatic sync at every stop");
    if (options.jvmSignalsMode)
      return switchAll(*options.jvmSignalsMode, &Registry::setDefaultJvmSignals,
                       [](TargetSync &state, bool on) { state.jvmSignals = on; },
                       "passing a JVM's own signals to it");
    if (options.watchMode)
      return switchAll(*options.watchMode, &Registry::setDefaultWatch,
                       [](TargetSync &state, bool on) {
                         state.watchCompiles = on;
                         updateCompileWatch(state);
                       },
                       "resolving pending breakpoints at compile time");
    if (!target.IsValid()) {
      if (options.onStop)
        return true;
      result.SetError("jit-sync: no target selected");
      return false;
    }
    TargetSync &state = reg.forTarget(target);
    if (options.status) {
      updateCompileWatch(state);
      result.Printf("%s", state.status().c_str());
      if (state.compileWatch.installed())
        result.Printf("compile watch: on, %zu write location(s): a breakpoint is pending\n",
                      state.compileWatch.locations(target));
      else if (!state.watchCompiles)
        result.Printf("compile watch: off (--watch-compiles off)\n");
      else if (state.runsJvm())
        result.Printf("compile watch: off (a JVM: its jitdump is read at stops)\n");
      else
        result.Printf("compile watch: off (no pending breakpoint)\n");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    if (options.clear) {
      state.reset();
      result.Printf("jit-sync: cleared the JIT modules of this target\n");
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
      return true;
    }
    // An attached JVM (or one launched before the plugin was loaded): its
    // signals, once, at the first stop.
    if (state.jvmSignals && !state.jvmSignalsChecked && target.GetProcess().IsValid() &&
        state.runsJvm()) {
      state.jvmSignalsChecked = true;
      result.Printf("%s", passJvmSignalsToProcess(debugger, target).c_str());
    }
    if (options.onStop && !state.autoSync)
      return true;

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
      llvm::Expected<ExportReport> exported = state.exportTo(*options.exportDir);
      if (!exported) {
        std::string message = "jit-sync: " + llvm::toString(exported.takeError());
        result.SetError(message.c_str());
        return false;
      }
      result.Printf("jit-sync: exported %llu symbols in %llu region%s to %s; in another "
                    "session: command source %s/load.lldb\n",
                    static_cast<unsigned long long>(exported->symbols),
                    static_cast<unsigned long long>(exported->regions),
                    exported->regions == 1 ? "" : "s",
                    options.exportDir->c_str(), options.exportDir->c_str());
    }
    result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
    return true;
  }
};

void installStopHook(lldb::SBDebugger &debugger, lldb::SBTarget target) {
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  llvm::Expected<std::string> hook = lldbQuoted(kStopHookCommand);
  if (!hook) {
    llvm::consumeError(hook.takeError()); // a constant without a line break
    return;
  }
  const std::string command = "target stop-hook add -o " + *hook;
  debugger.GetCommandInterpreter().HandleCommand(command.c_str(), context, result, false);
}

void destroyCallback(lldb::user_id_t, void *) {
  exitWatcher().stop();
  std::lock_guard<std::mutex> lock(registryMutex());
  registry().resetAll();
  if (llvm::Expected<std::string> root = privateDirectory())
    removeSessionDirectory(*root);
  else
    llvm::consumeError(root.takeError());
}

} // namespace
} // namespace jitsym::plugin

bool lldb::PluginInitialize(lldb::SBDebugger debugger) {
  using namespace jitsym::plugin;
  lldb::SBCommandInterpreter interpreter = debugger.GetCommandInterpreter();
  if (interpreter.CommandExists("jit-sync"))
    return true;
  lldb::SBCommand command =
      interpreter.AddCommand("jit-sync", new JitSyncCommand(), kHelp, kSyntax);
  if (!command.IsValid())
    return false;
  // The dummy target's stop hooks are copied into every target created later;
  // targets that already exist get their own.
  installStopHook(debugger, debugger.GetDummyTarget());
  for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
    installStopHook(debugger, debugger.GetTargetAtIndex(i));
  debugger.AddDestroyCallback(destroyCallback, nullptr);
  // Lives as long as the debugger's commands can run.
  auto *baton = new lldb::SBDebugger(debugger);
  interpreter.SetCommandOverrideCallback("process continue", beforeResume, baton);
  interpreter.SetCommandOverrideCallback("process launch", beforeLaunch, baton);
  return true;
}
