// The stop hook `jit-sync --on-stop`, jitsym's trigger at every stop LLDB runs
// hooks at: installed on the dummy target (copied into every target created
// later) and on the targets that exist at `plugin load`, once each; a user
// may delete it (`target stop-hook delete`), which `jit-sync --status` says
// and `jit-sync --auto on` undoes.
#pragma once

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

constexpr const char *kStopHookCommand = "jit-sync --on-stop";

// Whether `target` has the hook (read from `target stop-hook list`: the SB
// API has no stop-hook listing).
bool hasStopHook(lldb::SBDebugger &debugger, lldb::SBTarget target);
// Adds the hook to `target` unless it has it.
void ensureStopHook(lldb::SBDebugger &debugger, lldb::SBTarget target);

} // namespace jitsym::plugin
