// JIT address space from a memory map.
#include "jitsym/Regions.h"

#include <algorithm>

namespace jitsym {

JitAddressSpace JitAddressSpace::fromMemoryMap(const std::vector<Mapping> &mappings) {
  JitAddressSpace space;
  space.hasMap_ = true;
  std::vector<Mapping> sorted = mappings;
  std::sort(sorted.begin(), sorted.end(),
            [](const Mapping &a, const Mapping &b) { return a.start < b.start; });
  for (const Mapping &m : sorted) {
    if (m.isFileBacked() || m.isSpecial())
      continue;
    // Adjacent JIT mappings (V8 and HotSpot split one reservation by permission)
    // form one run, so a permission flip does not move section bounds.
    if (!space.runs_.empty() && space.runs_.back().end == m.start)
      space.runs_.back().end = m.end;
    else
      space.runs_.push_back({m.start, m.end});
  }
  return space;
}

JitAddressSpace JitAddressSpace::unrestricted() {
  JitAddressSpace space;
  space.runs_.push_back({0, UINT64_MAX});
  return space;
}

std::optional<AddressRange> JitAddressSpace::runContaining(uint64_t address) const {
  auto it = std::upper_bound(runs_.begin(), runs_.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  if (it == runs_.begin())
    return std::nullopt;
  --it;
  if (!it->contains(address))
    return std::nullopt;
  return *it;
}

} // namespace jitsym
