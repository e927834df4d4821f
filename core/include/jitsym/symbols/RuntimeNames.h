// What the names runtimes give their code say, in one place: the name forms of
// V8, HotSpot, BEAM, Mono, CPython and the like, as they reach perf maps and
// jitdumps.
#pragma once

#include <string>
#include <string_view>

namespace jitsym {

// Whether the runtime says by the name alone that the address is not machine
// code. V8 with --perf-basic-prof lists an interpreted function ("JS:~f ...",
// before V8 9 "LazyCompile:~f" or "InterpretedFunction:f"; a script's top
// level "Eval:~ /app.js:1:1", Deno's "Script:~ file:///app.js:1:1") at its bytecode
// array, in the heap; only with --interpreted-frames-native-stack is there a
// code copy at that address, in executable memory. So the memory map decides
// where there is one, and this where there is none (offline).
bool nameSaysNotMachineCode(std::string_view name);

// The name a user types for the function a runtime's decorated name stands
// for, or "" when the name is as typed already or stands for no function:
//   V8          "JS:*crunchTotals /app.js:3:22" (also ^ + ~, V8 13's *' +',
//               V8 14's o* o+, and the older "LazyCompile:*f",
//               "Function:f")                             -> "crunchTotals"
//   JSC (Bun)   "JSC-FTL: outerLoop#CLh8fG" (also DFG, Baseline)
//                                                         -> "outerLoop"
//   HotSpot     "long Hot.work(int)" (our agent, jcmd Compiler.perfmap;
//               the agent's "long Hot.work(int) [tier 4]") -> "Hot.work"
//   BEAM        "$busy:leaf/2" (perf map)                 -> "busy:leaf/2"
//   CPython     "py::Thing.run:/src/app.py"               -> "Thing.run"
//   Mono        "Demo.Hot:Work (int)"                     -> "Demo.Hot.Work"
//   PHP opcache "JIT$crunch", "JIT$Calc::run"             -> "crunch", "Calc::run"
// (the forms of V8, HotSpot, BEAM, Mono, PHP and CPython 3.12 and 3.13 (pyenv's;
// Debian 12's 3.11 has no perf map) checked on the real runtimes here: the
// runtime matrix)
// LLDB finds a JSON symbol by `breakpoint set -n` only under its whole name, so
// the symbol files carry this name too, as an alias (SymbolFileWriter.h).
std::string nameAsTyped(std::string_view name);

// What PHP's JIT names its code in its perf map and jitdump
// (opcache.jit_debug=0x10, 0x20) say of how it is entered:
//   OnVmFrame  entered by a jump, runs on execute_ex's frame (plan/RuntimeFrame.h): "JIT$func",
//              "JIT$Class::method", "JIT$/path/script.php", "TRACE-3$f$6",
//              "ESCAPE-3-1", and PHP's own stubs that jump ("JIT$$leave_function",
//              "JIT$$hybrid_hot_code", ...)
//   Own        called or moving the stack pointer, LLDB's own analysis of its
//              instructions is right: "JIT$$assign_const", "JIT$$undefined_offset",
//              "JIT$$cannot_add_element", "JIT$$trace_exit", "jit$$trace_exit_0"
//   NotPhp     not a name of PHP's JIT
enum class PhpJitCode { NotPhp, OnVmFrame, Own };
PhpJitCode phpJitCodeOf(std::string_view name);

} // namespace jitsym
