// What the names runtimes give their code say, in one place: the name forms of
// V8, HotSpot, BEAM, Mono, CPython and the like, as they reach perf maps and
// jitdumps.
#pragma once

#include <string_view>

namespace jitsym {

// Whether the runtime says by the name alone that the address is not machine
// code. V8 with --perf-basic-prof lists an interpreted function ("JS:~f ...",
// before V8 9 "LazyCompile:~f" or "InterpretedFunction:f") at its bytecode
// array, in the heap; only with --interpreted-frames-native-stack is there a
// code copy at that address, in executable memory. So the memory map decides
// where there is one, and this where there is none (offline).
bool nameSaysNotMachineCode(std::string_view name);

} // namespace jitsym
