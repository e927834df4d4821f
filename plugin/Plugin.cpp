// Entry point of libjitsym-lldb.so (`plugin load`): registers `jit-sync` and the
// stop hook that keeps every target's JIT symbols current with no user command.
#include <cstdio>
#include <optional>
#include <string>

#include "CommandOptions.h"
#include "Hooks.h"
#include "InterruptStops.h"
#include "JitSyncCommand.h"
#include "LldbVersionCheck.h"
#include "Registry.h"
#include "StopHook.h"
#include "jitsym/files/PrivateDir.h"
#include "lldb/API/LLDB.h"

namespace lldb {
__attribute__((visibility("default"))) bool PluginInitialize(lldb::SBDebugger debugger);
}

namespace jitsym::plugin {
namespace {

void destroyCallback(lldb::user_id_t, void *) {
  exitWatcher().stop();
  interruptStops().stop();
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
  // First, before any SB call on the debugger: a plugin built for another
  // LLDB would crash it (LldbVersionCheck.h).
  if (std::optional<std::string> refusal = lldbMismatch(hostLldbVersion())) {
    std::fprintf(stderr, "error: %s\n", refusal->c_str());
    return false;
  }
  lldb::SBCommandInterpreter interpreter = debugger.GetCommandInterpreter();
  // Loaded again into the same debugger (`plugin load` in ~/.lldbinit and in
  // an IDE's init commands, or beside `command script import python/jitsym`):
  // a second stop hook would sync every stop twice. `jit-sync` is a user
  // command, which CommandExists does not see.
  if (interpreter.UserCommandExists("jit-sync")) {
    writeText(debugger.GetOutputFile(), "jitsym: already loaded in this debugger\n");
    return true;
  }
  lldb::SBCommand command =
      interpreter.AddCommand("jit-sync", newJitSyncCommand(), jitSyncHelp(), jitSyncSyntax());
  if (!command.IsValid())
    return false;
  // The dummy target's stop hooks are copied into every target created later;
  // targets that already exist get their own.
  ensureStopHook(debugger, debugger.GetDummyTarget());
  for (uint32_t i = 0; i < debugger.GetNumTargets(); ++i)
    ensureStopHook(debugger, debugger.GetTargetAtIndex(i));
  debugger.AddDestroyCallback(destroyCallback, nullptr);
  // The stops LLDB runs no stop hook at (an interrupt) are synced too.
  interruptStops().watch(debugger);
  // Lives as long as the debugger's commands can run.
  auto *baton = new lldb::SBDebugger(debugger);
  interpreter.SetCommandOverrideCallback("process continue", beforeResume, baton);
  interpreter.SetCommandOverrideCallback("process launch", beforeLaunch, baton);
  interpreter.SetCommandOverrideCallback("thread backtrace", beforeInspect, baton);
  return true;
}
