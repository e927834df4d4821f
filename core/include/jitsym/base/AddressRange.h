// A range of addresses [start, end): of a region, a section, a mapping, a
// function. Every folder of core speaks of them, so it lives at the bottom.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace jitsym {

struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool contains(uint64_t a) const { return a >= start && a < end; }
  // Whether one of `addresses` (ascending) lies in the range.
  bool containsAny(const std::vector<uint64_t> &addresses) const {
    auto it = std::lower_bound(addresses.begin(), addresses.end(), start);
    return it != addresses.end() && *it < end;
  }
  bool operator==(const AddressRange &o) const { return start == o.start && end == o.end; }
  bool operator!=(const AddressRange &o) const { return !(*this == o); }
};

} // namespace jitsym
