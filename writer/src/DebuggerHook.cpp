// The function the debugger keeps its breakpoint on (DebuggerHook.h).
#include "jitsym/writer/DebuggerHook.h"

extern "C" __attribute__((noinline, visibility("default"))) void jitsym_code_announced(void) {
  // Not folded into its callers, nor removed: the debugger needs the call.
  __asm__ volatile("" ::: "memory");
}

__attribute__((visibility("default"))) jitsym_watch_list jitsym_watch = {}; // C linkage: DebuggerHook.h

namespace jitsym::writer {

bool debuggerWants(std::string_view name, uint64_t address, uint64_t size) {
  // Written by a debugger while every thread is stopped: a plain read.
  return watchListWants(jitsym_watch, name, address, size);
}

namespace {
thread_local int quietScopes = 0;
} // namespace

void codeAnnounced() {
  if (quietScopes == 0)
    jitsym_code_announced();
}

QuietAnnouncements::QuietAnnouncements() { ++quietScopes; }
QuietAnnouncements::~QuietAnnouncements() { --quietScopes; }

} // namespace jitsym::writer
