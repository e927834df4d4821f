// JIT address space from a memory map, less what other modules name.
#include "jitsym/plan/Regions.h"

#include <algorithm>

namespace jitsym {

bool isCopyOfMappedCode(const Mapping &m, const std::vector<Mapping> &mappings) {
  if (!m.execute || !m.isFileBacked())
    return false;
  const uint64_t length = m.end - m.start;
  for (const Mapping &n : mappings)
    if (n.start != m.start && n.execute && n.inode == m.inode && n.path == m.path &&
        n.offset <= m.offset && m.offset + length <= n.offset + (n.end - n.start))
      return true;
  return false;
}

JitAddressSpace JitAddressSpace::fromMemoryMap(const std::vector<Mapping> &mappings) {
  JitAddressSpace space;
  space.hasMap_ = true;
  std::vector<Mapping> sorted = mappings;
  std::sort(sorted.begin(), sorted.end(),
            [](const Mapping &a, const Mapping &b) { return a.start < b.start; });
  for (const Mapping &m : sorted) {
    if ((m.isFileBacked() && !isCopyOfMappedCode(m, sorted)) || m.isSpecial())
      continue;
    // Adjacent JIT mappings (V8 and HotSpot split one reservation by permission)
    // form one run, so a permission flip does not move section bounds.
    if (!space.runs_.empty() && space.runs_.back().end == m.start)
      space.runs_.back().end = m.end;
    else
      space.runs_.push_back({m.start, m.end});
    std::vector<AddressRange> &ranges = m.execute ? space.executable_ : space.writable_;
    if (!m.execute && !m.write)
      continue;
    if (!ranges.empty() && ranges.back().end == m.start)
      ranges.back().end = m.end;
    else
      ranges.push_back({m.start, m.end});
  }
  return space;
}

JitAddressSpace JitAddressSpace::unrestricted() {
  JitAddressSpace space;
  space.runs_.push_back({0, UINT64_MAX});
  return space;
}

JitAddressSpace JitAddressSpace::excluding(std::vector<AddressRange> ranges) const {
  if (ranges.empty())
    return *this;
  std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange &a, const AddressRange &b) { return a.start < b.start; });
  JitAddressSpace space;
  space.hasMap_ = hasMap_;
  space.executable_ = executable_; // only asked where a run is
  space.writable_ = writable_;
  auto cut = ranges.begin();
  for (AddressRange run : runs_) {
    // Ranges that end before this run cannot cut it or any later one.
    while (cut != ranges.end() && cut->end <= run.start)
      ++cut;
    for (auto c = cut; c != ranges.end() && c->start < run.end && run.start < run.end; ++c) {
      if (c->end <= run.start)
        continue;
      if (c->start > run.start)
        space.runs_.push_back({run.start, c->start});
      run.start = std::max(run.start, c->end);
    }
    if (run.start < run.end)
      space.runs_.push_back(run);
  }
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

std::optional<bool> JitAddressSpace::executable(uint64_t address) const {
  if (!hasMap_)
    return std::nullopt;
  auto it = std::upper_bound(executable_.begin(), executable_.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != executable_.begin() && std::prev(it)->contains(address);
}

bool JitAddressSpace::writableNotExecutable(uint64_t address) const {
  auto it = std::upper_bound(writable_.begin(), writable_.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != writable_.begin() && std::prev(it)->contains(address);
}

uint64_t JitAddressSpace::executableDigest() const {
  uint64_t digest = 1469598103934665603ull;
  for (const AddressRange &range : executable_)
    for (uint64_t value : {range.start, range.end})
      digest = (digest ^ value) * 1099511628211ull;
  return digest;
}

} // namespace jitsym
