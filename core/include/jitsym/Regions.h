// Grouping JIT code into regions and fixed windows. A window is the unit the
// debugger sees as one module with one code section: small enough that rebuilding
// it after code is replaced stays cheap, fixed so that its identity is stable.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "jitsym/MemoryMap.h"

namespace jitsym {

constexpr unsigned kWindowShift = 20; // 1 MiB windows
constexpr uint64_t kWindowSize = uint64_t(1) << kWindowShift;

struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool contains(uint64_t a) const { return a >= start && a < end; }
  bool operator==(const AddressRange &o) const { return start == o.start && end == o.end; }
  bool operator!=(const AddressRange &o) const { return !(*this == o); }
};

// Where JIT code may live in a process, built from its memory map: maximal runs of
// adjacent mappings that are neither file-backed nor special. Without a memory map
// (offline), every address is allowed.
class JitAddressSpace {
public:
  static JitAddressSpace fromMemoryMap(const std::vector<Mapping> &mappings);
  static JitAddressSpace unrestricted();

  // The run of JIT memory containing `address`, or nothing when the address is
  // file-backed, special or unmapped.
  std::optional<AddressRange> runContaining(uint64_t address) const;
  bool hasMemoryMap() const { return hasMap_; }

private:
  std::vector<AddressRange> runs_; // sorted, disjoint
  bool hasMap_ = false;
};

inline uint64_t windowIndexOf(uint64_t address) { return address >> kWindowShift; }

// The section of the window that holds `address`: the window clipped to the run
// of JIT memory around the address.
inline AddressRange windowSection(uint64_t windowIndex, const AddressRange &run) {
  uint64_t start = windowIndex << kWindowShift;
  uint64_t end = start + kWindowSize;
  if (end < start)
    end = UINT64_MAX;
  return {std::max(start, run.start), std::min(end, run.end)};
}

} // namespace jitsym
