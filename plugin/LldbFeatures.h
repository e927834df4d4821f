// What the SB API of the LLDB this plugin is built against has, for the parts
// that came after LLDB 19 (the oldest supported): each is a one-line
// degradation there, said by `jit-sync --status` (lldbFeatureNotes), never a
// failed build.
#pragma once

#include <string>

#include "lldb/API/LLDB.h"

// SBProgress (LLDB 20): a long sync's progress events.
#if __has_include("lldb/API/SBProgress.h")
#define JITSYM_LLDB_HAS_PROGRESS 1
#else
#define JITSYM_LLDB_HAS_PROGRESS 0
#endif

// SBMutex and SBTarget::GetAPIMutex (LLDB 21): the interrupt-stop thread holds
// a stopped process still while it syncs it.
#if __has_include("lldb/API/SBMutex.h")
#define JITSYM_LLDB_HAS_API_MUTEX 1
#else
#define JITSYM_LLDB_HAS_API_MUTEX 0
#endif

namespace jitsym::plugin {

// What this build does without, one line each ("" when it lacks nothing).
std::string lldbFeatureNotes();

} // namespace jitsym::plugin
