// The `jit-sync` command that the plugin adds to LLDB.
#pragma once

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// For SBCommandInterpreter::AddCommand, which takes ownership.
lldb::SBCommandPluginInterface *newJitSyncCommand();

} // namespace jitsym::plugin
