// Planning regions: windows clipped to runs of JIT memory, their UUIDs and files.
#include "jitsym/plan/RegionPlanner.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "jitsym/symbols/RuntimeNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace jitsym {
namespace {

constexpr uint64_t kPage = 4096;

uint64_t pageFloor(uint64_t address) { return address & ~(kPage - 1); }
uint64_t pageCeil(uint64_t address) {
  return address > UINT64_MAX - (kPage - 1) ? UINT64_MAX : pageFloor(address + kPage - 1);
}

} // namespace

RegionPlanner::RegionPlanner(const SymbolTable &table, const JitAddressSpace &space,
                             const std::vector<AddressRange> &claimed)
    : table_(table), space_(space.excluding(claimed)) {}

std::optional<AddressRange> RegionPlanner::sectionOf(uint64_t address) const {
  // Symbols come in address order: most share the last one's region.
  if (last_ && last_->contains(address))
    return last_;
  last_ = computeSectionOf(address);
  return last_;
}

AddressRange RegionPlanner::windowOf(uint64_t address) const {
  // Asked for symbol after symbol, in address order: mostly the last one.
  if (lastWindow_ && lastWindow_->contains(address))
    return *lastWindow_;
  lastWindow_ = computeWindowOf(address);
  return *lastWindow_;
}

AddressRange RegionPlanner::computeWindowOf(uint64_t address) const {
  unsigned shift = space_.hasMemoryMap() ? kLargestWindowShift : kUnmappedWindowShift;
  for (;; shift -= kWindowSplitShift) {
    const uint64_t size = uint64_t(1) << shift;
    const uint64_t start = address & ~(size - 1);
    const uint64_t end = start > UINT64_MAX - size ? UINT64_MAX : start + size;
    if (shift <= kSmallestWindowShift || table_.startingIn(start, end).size() <= kWindowSymbols)
      return {start, end};
  }
}

std::optional<AddressRange> RegionPlanner::computeSectionOf(uint64_t address) const {
  std::optional<AddressRange> run = space_.runContaining(address);
  if (!run)
    return std::nullopt;
  const AddressRange window = windowOf(address);
  uint64_t lo = std::max(window.start, run->start);
  uint64_t hi = std::min(window.end, run->end);
  // A symbol of an earlier window of this run that reaches into this one
  // keeps its bytes in its own region: this one starts after it.
  if (const Symbol *before = table_.findByAddress(lo);
      before && before->address < lo && before->address >= run->start)
    lo = std::min(std::max(lo, before->end()), run->end);
  if (address < lo)
    return std::nullopt; // inside an earlier window's symbol: no symbol starts here
  llvm::ArrayRef<Symbol> symbols = table_.startingIn(lo, hi);
  // And the last symbol of this window stays whole here, up to the run's end.
  if (!symbols.empty() && symbols.back().end() > hi)
    hi = std::min(symbols.back().end(), run->end);
  // With no memory map nothing says where JIT memory ends: the section covers
  // the pages of the window's symbols and nothing far from them.
  if (!space_.hasMemoryMap() && !symbols.empty()) {
    lo = std::max(lo, pageFloor(symbols.front().address));
    hi = std::min(hi, pageCeil(symbols.back().end()));
  }
  if (lo >= hi)
    return std::nullopt;
  return AddressRange{lo, hi};
}

std::vector<PlannedRegion> RegionPlanner::planRange(uint64_t begin, uint64_t end,
                                                    uint64_t *leftOut) const {
  std::vector<PlannedRegion> regions;
  for (const Symbol &symbol : table_.startingIn(begin, end)) {
    if (regions.empty() || !regions.back().section.contains(symbol.address)) {
      std::optional<AddressRange> section = sectionOf(symbol.address);
      if (!section) {
        if (leftOut)
          ++*leftOut;
        continue;
      }
      regions.push_back(PlannedRegion{*section, {}});
    }
    regions.back().symbols.push_back(&symbol);
  }
  return regions;
}

std::vector<PlannedRegion> RegionPlanner::planWindow(const AddressRange &window,
                                                     uint64_t *leftOut) const {
  return planRange(window.start, window.end, leftOut);
}

std::vector<PlannedRegion> RegionPlanner::plan(uint64_t *leftOut) const {
  return planRange(0, UINT64_MAX, leftOut);
}

bool RegionPlanner::isData(const Symbol &symbol) const {
  // A jitdump announces code (no producer lists data in one), also where its
  // memory is writable and not executable yet: LLVM's MCJIT writes its
  // CODE_LOADs before finalizeMemory makes the code executable, and runs it
  // with no stop between. So a breakpoint waiting for it resolves at the
  // announcement, as LLDB's own GDB JIT loader does in those pages.
  if ((symbol.flags & kOwnedFlag) && space_.writableNotExecutable(symbol.address))
    return false;
  if (std::optional<bool> executable = space_.executable(symbol.address))
    return !*executable;
  return nameSaysNotMachineCode(table_.name(symbol));
}

UuidBytes planUuid(const SymbolTable &table, const std::vector<PlannedRegion> &regions,
                   std::string_view salt) {
  // A word at a time, names by xxh3: a busy Node makes ~36k symbols' modules
  // anew at a stop, and hashing their names a byte at a time cost ~1 ms of it.
  uint64_t digest = 1469598103934665603ull;
  auto mix = [&](uint64_t value) {
    digest = (digest ^ value) * 0x9E3779B97F4A7C15ull;
    digest ^= digest >> 29;
  };
  for (const PlannedRegion &region : regions) {
    mix(region.section.start);
    mix(region.section.end);
    for (const Symbol *symbol : region.symbols) {
      mix(symbol->address);
      mix(symbol->size);
      mix(llvm::xxh3_64bits(llvm::arrayRefFromStringRef(table.name(*symbol))));
    }
  }
  char text[32];
  std::snprintf(text, sizeof(text), ":%016" PRIx64, digest);
  return uuidFromName(std::string(salt) + text);
}

std::string RegionFiles::directory(const AddressRange &section,
                                   std::optional<uint32_t> generation) {
  char name[48];
  if (generation)
    std::snprintf(name, sizeof(name), "w%" PRIx64 "-g%u", section.start, *generation);
  else
    std::snprintf(name, sizeof(name), "w%" PRIx64, section.start);
  return name;
}

std::string RegionFiles::symbols(uint32_t delta) {
  return delta == 0 ? "jit.json" : "jit.d" + std::to_string(delta) + ".json";
}

std::string RegionFiles::debug(uint32_t rewrite) {
  return rewrite == 0 ? "jit.debug" : "jit.debug" + std::to_string(rewrite);
}

} // namespace jitsym
