// The runtimes' name forms: what a user types for each, and what is not code.
#include "jitsym/symbols/RuntimeNames.h"

#include <gtest/gtest.h>

using namespace jitsym;

TEST(RuntimeNames, V8FunctionsByTheirOwnName) {
  EXPECT_EQ(nameAsTyped("JS:*crunchTotals /srv/app.js:3:22"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("JS:^crunchTotals /srv/app.js:3:22"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("JS:+crunchTotals /srv/app.js:3:22"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("JS:~crunchTotals /srv/app.js:3:22"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("LazyCompile:*crunchTotals /srv/app.js:3"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("LazyCompile:*crunchTotals /srv/app.js:3:22"), "crunchTotals");
  EXPECT_EQ(nameAsTyped("Function:*Point.norm file:///a b/app.mjs:9:1"), "Point.norm");
  EXPECT_EQ(nameAsTyped("JS:*total node:internal/x:4:9"), "total");
  EXPECT_EQ(nameAsTyped("JS:*get size /srv/app.js:10:5"), "get size");
  EXPECT_EQ(nameAsTyped("JS:* /srv/app.js:1:1"), ""); // anonymous
  EXPECT_EQ(nameAsTyped("JS:*"), "");
}

TEST(RuntimeNames, JavaMethodsAsJdbNamesThem) {
  EXPECT_EQ(nameAsTyped("long Hot.work(int)"), "Hot.work");
  EXPECT_EQ(nameAsTyped("int java.lang.String.hashCode()"), "java.lang.String.hashCode");
  EXPECT_EQ(nameAsTyped("void Outer$Inner.<init>(int, long)"), "Outer$Inner.<init>");
  // The agent's `tier` option (found by the runtime matrix: b Leaf.leaf
  // stayed pending with a [tier 3] frame of it on the stack).
  EXPECT_EQ(nameAsTyped("int Leaf.leaf(int) [tier 4]"), "Leaf.leaf");
  EXPECT_EQ(nameAsTyped("void Outer$Inner.<init>(int, long) [tier 1]"), "Outer$Inner.<init>");
  EXPECT_EQ(nameAsTyped("StubRoutines (1)"), ""); // a stub, not a method
  EXPECT_EQ(nameAsTyped("Interpreter"), "");
}

TEST(RuntimeNames, BeamPhpPythonMono) {
  EXPECT_EQ(nameAsTyped("$busy:leaf/2"), "busy:leaf/2");
  EXPECT_EQ(nameAsTyped("busy:leaf/2"), ""); // the jitdump's names are as typed
  EXPECT_EQ(nameAsTyped("JIT$crunch"), "crunch");
  EXPECT_EQ(nameAsTyped("JIT$Calc::run"), "Calc::run");
  EXPECT_EQ(nameAsTyped("JIT$$leave_function"), "");      // a stub of PHP's own
  EXPECT_EQ(nameAsTyped("JIT$/srv/app.php"), "");         // a script's main code
  EXPECT_EQ(nameAsTyped("TRACE-1$crunch$2"), "");         // a trace, not a function
  EXPECT_EQ(nameAsTyped("$busy:leaf/2-CodeInfoPrologue"), "busy:leaf/2-CodeInfoPrologue");
  EXPECT_EQ(nameAsTyped("py::Thing.run:/src/app.py"), "Thing.run");
  EXPECT_EQ(nameAsTyped("Demo.Hot:Work (int)"), "Demo.Hot.Work");
  EXPECT_EQ(nameAsTyped("(wrapper runtime-invoke) object:runtime_invoke_void (object,intptr)"), "");
}

TEST(RuntimeNames, PlainNamesNeedNoAlias) {
  EXPECT_EQ(nameAsTyped("jit_phase1_leaf"), "");
  EXPECT_EQ(nameAsTyped(""), "");
  EXPECT_EQ(nameAsTyped("$"), "");
}

TEST(RuntimeNames, InterpretedV8EntriesAreNotCode) {
  EXPECT_TRUE(nameSaysNotMachineCode("JS:~crunchTotals /srv/app.js:3:22"));
  EXPECT_TRUE(nameSaysNotMachineCode("LazyCompile:~f a.js:1"));
  EXPECT_FALSE(nameSaysNotMachineCode("JS:*crunchTotals /srv/app.js:3:22"));
}

// Lines of real perf maps and jitdumps (Node 22.23.3, 24.21.0, 26.12.1,
// Deno 2.9.6, Bun 1.4.5), each form a user must reach by the function's name.
TEST(RuntimeNames, V8TierMarksOfEveryVersion) {
  // Node 24 (V8 13.6): code specialized to one closure's context.
  EXPECT_EQ(nameAsTyped("JS:+'regexWork /work/rt/prog.js:47:19"), "regexWork");
  EXPECT_EQ(nameAsTyped("JS:*'middle /work/rt/prog.js:31:16"), "middle");
  // Node 26 (V8 14.6), Deno (V8 15.0): on-stack replacement.
  EXPECT_EQ(nameAsTyped("JS:o+outerLoop /work/rt/prog.js:35:19"), "outerLoop");
  EXPECT_EQ(nameAsTyped("JS:o*outerLoop /work/rt/prog.js:35:19"), "outerLoop");
  EXPECT_EQ(nameAsTyped("JS:o*top file:///work/rt/prog.js:56:13"), "top");
  // Node 22 (V8 12.4) and internals.
  EXPECT_EQ(nameAsTyped("JS:^regexWork /work/rt/prog.js:47:19"), "regexWork");
  EXPECT_EQ(nameAsTyped("JS:^SafeMap node:internal/per_context/primordials:408:3"), "SafeMap");
  // A function whose own name starts with an o is not taken for OSR code.
  EXPECT_EQ(nameAsTyped("JS:*onData /srv/app.js:3:1"), "onData");
  EXPECT_EQ(nameAsTyped("JS:oneShot /srv/app.js:3:1"), "oneShot"); // no tier mark
  // A script's top level, Node's CommonJS wrapper and Deno's module: no function.
  EXPECT_EQ(nameAsTyped("Eval:~ /work/rt/prog.js:1:1"), "");
  EXPECT_EQ(nameAsTyped("Script:~ file:///work/rt/prog.js:1:1"), "");
  // Builtins and the rest are named as typed already.
  EXPECT_EQ(nameAsTyped("Builtin:InterpreterEntryTrampoline"), "");
  EXPECT_EQ(nameAsTyped("RegExp.< src: 'ab+c(\\d+)' flags: 'g'"), "");
}

TEST(RuntimeNames, JavaScriptCoreTiers) {
  EXPECT_EQ(nameAsTyped("JSC-FTL: outerLoop#D2zyzt"), "outerLoop");
  EXPECT_EQ(nameAsTyped("JSC-DFG: leaf#D33cUR"), "leaf");
  EXPECT_EQ(nameAsTyped("JSC-Baseline: middle#DnH1MD"), "middle");
  EXPECT_EQ(nameAsTyped("JSC-Thunk: DefaultCall"), "");
  EXPECT_EQ(nameAsTyped("JSC-LLIntThunk: function for call with arity check"), "");
  EXPECT_EQ(nameAsTyped("JSC-InlineCache: GetById Load handler"), "");
  EXPECT_EQ(nameAsTyped("JSC-DFGOSRExit: unspecified"), "");
  EXPECT_EQ(nameAsTyped("JSC-YarrJIT: /ab+c(\\d+)/g"), "");
}

TEST(RuntimeNames, ScriptTopLevelsAtBytecodeAreNotCode) {
  EXPECT_TRUE(nameSaysNotMachineCode("Eval:~ /work/rt/prog.js:1:1"));
  EXPECT_TRUE(nameSaysNotMachineCode("Script:~ file:///work/rt/prog.js:1:1"));
  EXPECT_FALSE(nameSaysNotMachineCode("JS:o*outerLoop /work/rt/prog.js:35:19"));
  EXPECT_FALSE(nameSaysNotMachineCode("JSC-FTL: outerLoop#D2zyzt"));
}

// PHP 8.2's JIT (opcache.jit_debug=0x10), names from its perf map: what runs
// on execute_ex's frame (entered by a jump), and what is called or moves the
// stack pointer.
TEST(RuntimeNames, PhpJitCodeByHowItIsEntered) {
  for (const char *onVmFrame : {"JIT$middle", "JIT$Calc::run", "JIT${closure}",
                                "JIT$/tmp/t.php", "TRACE-6$middle$14", "ESCAPE-3-1",
                                "JIT$$interrupt_handler", "JIT$$leave_function",
                                "JIT$$hybrid_hot_code", "JIT$$trace_halt"})
    EXPECT_EQ(phpJitCodeOf(onVmFrame), PhpJitCode::OnVmFrame) << onVmFrame;
  for (const char *own : {"JIT$$assign_const", "JIT$$assign_cv_noref", "JIT$$undefined_offset",
                          "JIT$$undefined_index_ex", "JIT$$cannot_add_element",
                          "JIT$$trace_exit", "jit$$trace_exit_0", "JIT$$double_one"})
    EXPECT_EQ(phpJitCodeOf(own), PhpJitCode::Own) << own;
  for (const char *other : {"JS:*f /a.js:1:1", "jit_phase1_leaf", "$busy:leaf/2", "TRACE"})
    EXPECT_EQ(phpJitCodeOf(other), PhpJitCode::NotPhp) << other;
}
