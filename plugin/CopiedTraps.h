// A runtime that moves code (jitdump CODE_MOVE: V8 compacting its code space)
// copies the bytes under a breakpoint location, LLDB's trap among them. Were
// LLDB to set the location's site in the copy, it would save that trap as the
// instruction to run, and the program would trap again where nobody set a
// breakpoint. So before the module is made anew, each trap copied from a
// location gets the instruction it hides back.
#pragma once

#include <vector>

#include "PendingBreakpoints.h"
#include "jitsym/formats/JitdumpParser.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// For every location of `pending` in the old code of `moves`, copies the
// instruction bytes there, as LLDB reads them (its traps taken out), to the
// same place in the new code where those differ. Returns the bytes written.
size_t restoreCopiedTraps(lldb::SBProcess &process, const PendingBreakpoints &pending,
                          const std::vector<JitCodeMove> &moves);

} // namespace jitsym::plugin
