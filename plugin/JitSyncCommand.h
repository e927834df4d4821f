// The `jit-sync` command that the plugin adds to LLDB.
#pragma once

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// For SBCommandInterpreter::AddCommand, which takes ownership.
lldb::SBCommandPluginInterface *newJitSyncCommand();

// What `jit-sync --on-stop` (the stop hook) does, for a stop LLDB runs no stop
// hook at (InterruptStops.h): sync `target`, saying only problems, unless a
// sync was at `stopId` already. The caller holds registryMutex().
void syncAtStopHoldingRegistry(lldb::SBDebugger debugger, lldb::SBTarget target,
                               uint32_t stopId);

} // namespace jitsym::plugin
