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

namespace jitsym::writer {

// What the writer calls once an announcement is in its file: the hook, unless
// the calling thread is in a QuietAnnouncements scope.
void codeAnnounced();

// Within its scope, the calling thread's announcements stop no debugger: code
// nobody sets a breakpoint in by name (a JVM's stubs, hundreds of them as it
// starts, where every stop risks one LLDB shows: see DESIGN.md).
class QuietAnnouncements {
public:
  QuietAnnouncements();
  ~QuietAnnouncements();
  QuietAnnouncements(const QuietAnnouncements &) = delete;
  QuietAnnouncements &operator=(const QuietAnnouncements &) = delete;
};

} // namespace jitsym::writer
