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

#include <cstdint>
#include <string_view>

#include "jitsym/formats/WatchList.h"

extern "C" {
// Exported under these names by libjitsym-writer.so; in the agents, which
// export only their entry points, they are in the symbol table LLDB reads.
void jitsym_code_announced(void);
// What the debugger waits for (core formats/WatchList.h), written by it while
// its breakpoint is on the hook: announcements nothing waits for make no call.
extern jitsym_watch_list jitsym_watch;
}

namespace jitsym::writer {

// Whether the debugger may want the announcement of code [address, address +
// size) named `name` (empty for an unload): always, until it wrote a list.
bool debuggerWants(std::string_view name, uint64_t address, uint64_t size);

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
