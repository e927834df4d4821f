// What V8 writes wrong in jitdump line tables, repaired (or dropped) after
// parsing: JitdumpParser reads the specification, this step knows V8.
#pragma once

#include <list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/formats/JitdumpParser.h"

namespace jitsym {

// A file name from Node 20's V8 may hold bytes of freed memory (in part or in
// whole) while its length is right; the code's name ("JS:*f /path/app.js:3:7")
// holds the intact path. Returns the name, restored if it was damaged; nullopt
// if it is damaged beyond repair.
std::optional<std::string> repairedFileName(std::string_view file, std::string_view codeName);

// The step applied to the line entries of a CODE_DEBUG_INFO once the CODE_LOAD
// they describe is known: each damaged file name is restored with
// repairedFileName (the restored names are kept in `names`, which the entries
// then point into; intact names are left as they are, and `names` empty); an
// entry whose name is beyond repair gets line 0 (its addresses have no line
// rather than a wrong one).
void repairV8FileNames(std::vector<JitLineEntry> &entries, std::string_view codeName,
                       std::list<std::string> &names);

// V8 (through at least 11.3, Node 20) writes the debug info of its baseline
// (Sparkplug, "JS:^") code with bytecode offsets where code offsets belong, so
// those lines name the wrong instructions: they are dropped. Its optimized
// ("JS:*") code has true code offsets.
bool hasBytecodeOffsetsForLines(std::string_view codeName);

} // namespace jitsym
