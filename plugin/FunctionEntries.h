// What the entries of JIT functions say about their frame pointer, read from
// the process's memory (live, remote or a core file alike, through the SB
// API) a page at a time: a region's functions mostly share their pages.
// Made for one sync: code is rewritten between stops.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "jitsym/plan/FramePointer.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class FunctionEntries {
public:
  explicit FunctionEntries(lldb::SBProcess process) : process_(std::move(process)) {}

  // The function at `start`, of `size` bytes (0: unknown); Unknown when its
  // bytes cannot be read.
  FramePointer at(uint64_t start, uint64_t size);
  // The same, as core's EntryProbe (valid while this object lives).
  EntryProbe probe() {
    return [this](uint64_t start, uint64_t size) { return at(start, size); };
  }

private:
  // The page at `base`, read once; empty when it cannot be read.
  const std::string &page(uint64_t base);

  lldb::SBProcess process_;
  std::unordered_map<uint64_t, std::string> pages_;
};

} // namespace jitsym::plugin
