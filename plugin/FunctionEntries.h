// What the entries of JIT functions say about their frame pointer, read from
// the process's memory (live, remote or a core file alike) through its
// ProcessSide. A sync asks for all the functions it will publish at once
// (prefetch): their entries are read in one batch (the local side: a
// process_vm_readv per 1024 functions) and only the answers are kept. A
// function asked for later is read alone. Made for one sync: code is
// rewritten between stops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/Regions.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class FunctionEntries {
public:
  // The bytes of each piece (ProcessSide::readPieces).
  using ReadPieces = std::function<std::vector<std::string>(const std::vector<AddressRange> &)>;
  explicit FunctionEntries(ReadPieces read) : read_(std::move(read)) {}

  // Reads the entries of these functions (start, size; 0: unknown) in one batch.
  void prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions);
  // The function at `start`, of `size` bytes (0: unknown); Unknown when its
  // bytes cannot be read.
  FramePointer at(uint64_t start, uint64_t size);
  // The same, as core's EntryProbe (valid while this object lives).
  EntryProbe probe() {
    return [this](uint64_t start, uint64_t size) { return at(start, size); };
  }

private:
  ReadPieces read_;
  // What prefetch found, by start and bytes looked at.
  std::vector<std::pair<AddressRange, FramePointer>> known_;
};

} // namespace jitsym::plugin
