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
