// Source lines of JIT code (from jitdump CODE_DEBUG_INFO), per function: the
// line of an address is that of the last entry at or before it; an entry with
// line 0 (as in DWARF) marks code with no line. With them, where a function
// is entered when not at its start (jitsym's JITSYM_CODE_ENTRY: HotSpot's
// verified entry point), which is where a breakpoint on it goes. JitdumpSymbols keeps them in
// step with the symbol table: a function's lines go when the table drops its
// symbol (as the table applies its announcements, at its next query).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jitsym/formats/JitdumpParser.h"

namespace jitsym {

struct SourceLine {
  std::string_view file;
  uint32_t line = 0;
  uint32_t column = 0; // 0 when unknown
};

class LineTables {
public:
  struct Entry {
    uint64_t address;
    uint32_t line;
    uint32_t column;
    uint32_t file; // index into files()
  };

  // The lines of the function at `start` (replacing any it had); file names are
  // copied. No entries: the function has no lines.
  void set(uint64_t start, const std::vector<JitLineEntry> &entries);
  void erase(uint64_t start) {
    tables_.erase(start);
    entryPoints_.erase(start);
  }
  // Every call into the function at `start` passes `entry` (after start);
  // nullopt: none known (it is entered at its start).
  void setEntryPoint(uint64_t start, std::optional<uint64_t> entry);
  std::optional<uint64_t> entryPoint(uint64_t start) const;
  // The function's code moved from `from` to `to`: so do its lines.
  void move(uint64_t from, uint64_t to);
  void clear();

  // The line of `address` in the function that starts at `start`.
  std::optional<SourceLine> find(uint64_t start, uint64_t address) const;
  // The entries of the function at `start`, in address order; null if none.
  const std::vector<Entry> *entries(uint64_t start) const;
  std::string_view file(uint32_t index) const { return files_[index]; }
  size_t functionCount() const { return tables_.size(); }

private:
  uint32_t intern(std::string_view file);

  std::unordered_map<uint64_t, std::vector<Entry>> tables_;
  std::unordered_map<uint64_t, uint64_t> entryPoints_; // start -> entry
  std::vector<std::string> files_;
  std::unordered_map<std::string, uint32_t> fileIndex_;
  uint32_t lastFile_ = 0; // the file interned last
};

} // namespace jitsym
