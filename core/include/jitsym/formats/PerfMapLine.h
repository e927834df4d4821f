// One perf map line (`START SIZE name`), parsed as a pure function over its
// bytes. LLVM-free: the in-process write filter (agents/watch) reads lines too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace jitsym {

// One announced symbol. `name` points into the parsed buffer.
struct PerfMapEntry {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string_view name;
};

// Reads a hexadecimal number with an optional 0x prefix (leading zeros allowed,
// as HotSpot pads to 16 digits); false on junk or a value over 64 bits.
bool parseHexNumber(std::string_view text, uint64_t &value);

// Parses one line without its newline (a trailing '\r' is tolerated). Both the
// documented bare-hex form (Node, Mono) and the 0x form (HotSpot) are accepted.
// Returns false and sets `error` to what is wrong when the line is malformed.
bool parsePerfMapLine(std::string_view line, PerfMapEntry &entry,
                      std::string &error);

} // namespace jitsym
