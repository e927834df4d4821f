// Command lines given to LLDB's command interpreter: the one place that quotes
// an argument, so that a path with spaces, quotes, backslashes, semicolons or
// non-ASCII text reaches the command as it is.
#pragma once

#include <string>
#include <string_view>

#include "llvm/Support/Error.h"

namespace jitsym {

// `argument` in double quotes. Inside them LLDB takes a backslash before `"`
// or `\` as that character and every other byte as it is (checked on LLDB 22:
// spaces, `;`, `'`, backticks, `$`, UTF-8). A line break would end the command
// line, so an argument holding one is an error.
llvm::Expected<std::string> lldbQuoted(std::string_view argument);

// `command -- "path"`: the `--` keeps a path that starts with '-' from being
// taken for an option.
llvm::Expected<std::string> lldbCommandWithPath(std::string_view command, std::string_view path);

} // namespace jitsym
