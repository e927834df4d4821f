// Parsing perf map text (`START SIZE name` per line) as pure functions over bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "jitsym/formats/PerfMapLine.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace jitsym {

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
