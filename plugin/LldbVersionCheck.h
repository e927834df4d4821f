// A plugin built for one LLDB loaded into another crashes it: the plugin
// brings its own liblldb into the process, its SB calls go there (Debian's
// liblldb-N binds them so), and the host's objects reach it with another
// layout (SIGSEGV in SBCommandInterpreter::AddCommand, 22 into 19 and the
// reverse). So before any SB call on the debugger, PluginInitialize looks for
// a liblldb in the process other than its own, and refuses to load if there
// is one, naming both versions.
#pragma once

#include <optional>
#include <string>

namespace jitsym::plugin {

// The LLDB major version this plugin was built against.
unsigned builtForLldb();

// Why the host LLDB (its version string) cannot load this plugin; none when it
// can.
std::optional<std::string> lldbMismatch(const std::string &hostVersionString);

// The version string of the LLDB this process runs: that of a liblldb loaded
// here other than the plugin's own, if any (each liblldb answers
// SBDebugger::GetVersionString, a static call that touches no object), else
// the plugin's own.
std::string hostLldbVersion();

} // namespace jitsym::plugin
