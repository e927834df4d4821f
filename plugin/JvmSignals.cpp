#include "JvmSignals.h"

#include <sstream>
#include <sys/stat.h>

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace jitsym::plugin {
namespace {

constexpr const char *kNames[] = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGUSR2"};

bool exists(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string handle(lldb::SBDebugger &debugger, lldb::SBTarget &target, const std::string &args,
                   bool &ok) {
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  debugger.GetCommandInterpreter().HandleCommand(("process handle " + args).c_str(), context,
                                                 result, false);
  ok = result.Succeeded();
  return result.GetOutput() ? result.GetOutput() : "";
}

constexpr const char *kPassedNote =
    "jit-sync: the target is a JVM: passing SIGSEGV SIGBUS SIGILL SIGFPE SIGUSR2 to it "
    "without stopping (HotSpot raises them itself; 'jit-sync --jvm-signals off' keeps "
    "LLDB's handling)\n";

// Passes the signals; the note for the user when LLDB took the command.
std::string pass(lldb::SBDebugger &debugger, lldb::SBTarget &target) {
  bool ok = false;
  handle(debugger, target, std::string(kJvmSignals) + " -s false -n false -p true", ok);
  return ok ? kPassedNote : "";
}

} // namespace

const char *const kJvmSignals = "SIGSEGV SIGBUS SIGILL SIGFPE SIGUSR2";

bool runsJvm(lldb::SBTarget &target) {
  lldb::SBFileSpec executable = target.GetExecutable();
  char path[4096];
  if (executable.IsValid() && executable.GetPath(path, sizeof path) > 0) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(path, real)) {
      llvm::StringRef bin = llvm::sys::path::parent_path(real);
      llvm::StringRef home = llvm::sys::path::parent_path(bin);
      if (exists((home + "/lib/libjli.so").str()) || exists((home + "/lib/server/libjvm.so").str()))
        return true;
    }
  }
  for (uint32_t i = 0; i < target.GetNumModules(); ++i) {
    const char *name = target.GetModuleAtIndex(i).GetFileSpec().GetFilename();
    if (name && (llvm::StringRef(name) == "libjvm.so" || llvm::StringRef(name) == "libjli.so"))
      return true;
  }
  return false;
}

std::string passJvmSignalsBeforeLaunch(lldb::SBDebugger &debugger, lldb::SBTarget &target) {
  // Without a process, `process handle NAMES` lists only the signals the user
  // set for this target.
  bool ok = false;
  const std::string listed = handle(debugger, target, kJvmSignals, ok);
  if (!ok)
    return "";
  for (const char *name : kNames)
    if (listed.find(name) != std::string::npos)
      return "";
  return pass(debugger, target);
}

std::string passJvmSignalsToProcess(lldb::SBDebugger &debugger, lldb::SBTarget &target) {
  lldb::SBUnixSignals signals = target.GetProcess().GetUnixSignals();
  if (!signals.IsValid())
    return "";
  bool alreadyPassed = true;
  for (const char *name : kNames) {
    const int32_t number = signals.GetSignalNumberFromName(name);
    const bool stop = signals.GetShouldStop(number), notify = signals.GetShouldNotify(number);
    const bool pass = !signals.GetShouldSuppress(number);
    if (stop && notify && pass)
      alreadyPassed = false; // LLDB's default on Linux: stop, say so, pass on
    else if (stop || notify || !pass)
      return ""; // neither LLDB's default nor ours: the user's choice
  }
  return alreadyPassed ? "" : pass(debugger, target);
}

} // namespace jitsym::plugin
