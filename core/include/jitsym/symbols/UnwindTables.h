// Unwind tables of JIT functions (from jitdump CODE_UNWINDING_INFO), kept per
// function start so that they follow the function's code when it moves and go
// when it is replaced (JitdumpSymbols erases them when the symbol table drops
// the function's symbol, whatever drops it).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "jitsym/formats/EhFrameParser.h"

namespace jitsym {

class UnwindTables {
public:
  // The frames of the function at `start` (replacing any it had); none: it has none.
  void set(uint64_t start, std::vector<CallFrameInfo> frames);
  void erase(uint64_t start) { tables_.erase(start); }
  // The function's code moved from `from` to `to`: so do its frames.
  void move(uint64_t from, uint64_t to);
  void clear() { tables_.clear(); }

  // The frames of the function at `start`; null if none.
  const std::vector<CallFrameInfo> *frames(uint64_t start) const;
  size_t functionCount() const { return tables_.size(); }

private:
  std::unordered_map<uint64_t, std::vector<CallFrameInfo>> tables_;
};

} // namespace jitsym
