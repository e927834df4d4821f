// Line counts of the source files JIT line tables name, to catch impossible
// lines: Node 20's V8 gives the lines of code inlined from another script with
// the outer script's name, so "app.js:70" can appear for a 10-line app.js.
// Only local absolute paths are read; anything else is taken on trust.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace jitsym {

class SourceFiles {
public:
  // False only when `file` could be read and has fewer than `line` lines.
  bool lineCanExist(std::string_view file, uint32_t line);

private:
  std::unordered_map<std::string, std::optional<uint32_t>> lineCounts_; // none: unreadable
};

// The number of lines of `text` (a last line without a newline counts).
uint32_t countLines(std::string_view text);

} // namespace jitsym
