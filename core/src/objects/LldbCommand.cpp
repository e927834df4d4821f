// Quoting arguments for LLDB's command interpreter.
#include "jitsym/objects/LldbCommand.h"

namespace jitsym {

llvm::Expected<std::string> lldbQuoted(std::string_view argument) {
  std::string quoted = "\"";
  for (char c : argument) {
    if (c == '\n' || c == '\r')
      return llvm::createStringError(std::errc::invalid_argument,
                                     "%.*s: a line break cannot be given to an LLDB command",
                                     static_cast<int>(argument.size()), argument.data());
    if (c == '"' || c == '\\')
      quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

llvm::Expected<std::string> lldbCommandWithPath(std::string_view command, std::string_view path) {
  llvm::Expected<std::string> quoted = lldbQuoted(path);
  if (!quoted)
    return quoted.takeError();
  return std::string(command) + " -- " + *quoted;
}

} // namespace jitsym
