// What a debugger waits for, as it writes it into a producer's memory: the
// variable `jitsym_watch` of libjitsym-writer (writer/DebuggerHook.h). A
// producer calls jitsym_code_announced(), where the debugger stops, only for
// an announcement the list says may matter: code whose name holds a wanted
// name, or code over a breakpoint's location. Everything else is written to
// the files and runs on without a stop (a stop costs the program milliseconds;
// javac compiles thousands of methods).
//
// The layout is the ABI between jitsym's plugin (which encodes it) and every
// producer built on the writer (which reads it), in the one place both
// include. Plain C types, no pointers; LLVM-free (in jitsym_format).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" {

#define JITSYM_WATCH_VERSION 1u

struct jitsym_watch_list {
  // JITSYM_WATCH_VERSION once a debugger wrote the list; 0 (as the writer
  // starts): no list, every announcement calls the hook.
  uint32_t version;
  // Nonzero: every announcement matters (a breakpoint by pattern or by file
  // and line, or more than the list holds).
  uint32_t everything;
  // names[0, nameBytes): NUL-terminated names, one after another.
  uint32_t nameBytes;
  // addresses[0, addressCount): breakpoint locations in JIT code, ascending.
  uint32_t addressCount;
  char names[1024];
  uint64_t addresses[64];
};
}

namespace jitsym {

// What the plugin writes: `names` are matched as parts of a runtime's names
// (each is reduced to its last component, after '.', ':' or '/' boundaries
// such as `Leaf.leaf` -> `leaf`, which the runtime's own spelling holds
// whatever its decorations); `addresses` ascending. Too many of either, or
// `everything`, gives a list where everything matters.
jitsym_watch_list encodeWatchList(const std::vector<std::string> &names,
                                  const std::vector<uint64_t> &addresses, bool everything);

// What a producer asks before announcing code [address, address + size) named
// `name` (empty for a move or an unload): whether the debugger may want it.
// Reads `list` defensively: its counts are bounded by its arrays.
bool watchListWants(const jitsym_watch_list &list, std::string_view name, uint64_t address,
                    uint64_t size);

} // namespace jitsym
