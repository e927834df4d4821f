// What the plugin does outside its command: the compile watch's callback at a
// runtime's write(2), and the checks before `process continue` and `process
// launch` run.
#pragma once

#include <string>

#include "TargetSync.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// Text for the user outside a command's result: LLDB shows neither the output
// nor the errors of a stop hook's commands.
void writeText(lldb::SBFile file, const std::string &text);

// The compile watch is wanted while automatic sync is on and a breakpoint of the
// user's is pending; checked at every stop and before every resume.
void updateCompileWatch(TargetSync &state);

// The same, from InterruptStops' thread, when `target`'s breakpoints changed
// since the watch last read them: a breakpoint set through the SB API and the
// process resumed or launched through it (lldb-dap's setFunctionBreakpoints,
// then configurationDone or continue), where no command override runs.
// Takes the target's API lock, then the registry lock only if it is free.
void updateCompileWatchIfChanged(lldb::SBTarget target);

// Command overrides (SBCommandInterpreter::SetCommandOverrideCallback); the
// baton is the debugger. They return false: the command runs.
bool beforeResume(void *baton, const char **command);
bool beforeLaunch(void *baton, const char **command);
bool beforeInspect(void *baton, const char **command);

} // namespace jitsym::plugin
