// What the entries of a jitdump's functions say of their frame pointer, from
// the code bytes its CODE_LOAD records carry: offline (`jitsym export`) there
// is no process memory to read them from, and the file has them. Live, the
// plugin reads the process's memory instead (plugin/FunctionEntries.h).
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>

#include "jitsym/arch/EntryRule.h"

namespace jitsym {

class JitdumpEntries {
public:
  // Reads `file`, a whole jitdump: the last CODE_LOAD at an address speaks
  // for it, and CODE_MOVE carries what it said along. Pure; a malformed or
  // cut-off file gives what its records before that said; a file of an
  // architecture jitsym does not know (jitsym/arch) gives nothing.
  static JitdumpEntries read(std::string_view file);

  // The function at `start`; Unknown if no CODE_LOAD put code there.
  EntryRule at(uint64_t start) const;
  // As core's EntryProbe (valid while this object lives).
  EntryProbe probe() const {
    return [this](uint64_t start, uint64_t) { return at(start); };
  }
  size_t size() const { return entries_.size(); }

private:
  std::unordered_map<uint64_t, EntryRule> entries_;
};

} // namespace jitsym
