// Parsing perf map text (`START SIZE name` per line) as pure functions over bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "llvm/ADT/STLFunctionalExtras.h"

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

struct PerfMapChunkResult {
  uint64_t bytesConsumed = 0; // up to and including the last complete line
  uint64_t linesConsumed = 0; // complete lines, blank and malformed ones included
};

// Parses the complete lines at the start of `bytes`; an unterminated last line is
// left unconsumed so a half-written line never becomes a symbol. `firstLine` is
// the 1-based number of the first line, for error reports.
PerfMapChunkResult parsePerfMapChunk(
    std::string_view bytes, uint64_t firstLine,
    llvm::function_ref<void(const PerfMapEntry &)> onEntry,
    llvm::function_ref<void(uint64_t line, std::string message)> onError);

} // namespace jitsym
