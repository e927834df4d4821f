// Installing and finding the stop hook, through LLDB's commands.
#include "StopHook.h"

#include <string>

#include "jitsym/objects/LldbCommand.h"

namespace jitsym::plugin {

bool hasStopHook(lldb::SBDebugger &debugger, lldb::SBTarget target) {
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  debugger.GetCommandInterpreter().HandleCommand("target stop-hook list", context, result,
                                                 false);
  const char *output = result.GetOutput();
  return output && std::string(output).find(kStopHookCommand) != std::string::npos;
}

void ensureStopHook(lldb::SBDebugger &debugger, lldb::SBTarget target) {
  if (hasStopHook(debugger, target))
    return;
  llvm::Expected<std::string> hook = lldbQuoted(kStopHookCommand);
  if (!hook) {
    llvm::consumeError(hook.takeError()); // a constant without a line break
    return;
  }
  const std::string command = "target stop-hook add -o " + *hook;
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  debugger.GetCommandInterpreter().HandleCommand(command.c_str(), context, result, false);
}

} // namespace jitsym::plugin
