// The debugger's stop at each announcement, as GDB's JIT interface has one
// (__jit_debug_register_code): every producer built on libjitsym-writer (a JIT
// linking it, the JVMTI agent, the Intel-API collector) calls
// jitsym_code_announced() once the bytes of an announcement are in its file,
// before the runtime can run the code. jitsym's LLDB plugin keeps a breakpoint
// on it only while a breakpoint waits for JIT code or sits in it; the plugin
// reads the files there and resumes, so a pending breakpoint resolves, and a
// location follows code compiled again, before that code runs. Without a
// debugger it is an empty call.
#pragma once

extern "C" {
// Exported under this name by libjitsym-writer.so; in the agents, which
// export only their entry points, it is in the symbol table LLDB reads.
void jitsym_code_announced(void);
}
