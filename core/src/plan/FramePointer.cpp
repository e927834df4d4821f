// Which code keeps a frame pointer: each architecture's entry decoder
// (src/arch/EntryDecoder.cpp), and the ranges a region's rule covers.
#include "jitsym/plan/FramePointer.h"

#include <algorithm>
#include <optional>

#include "../arch/EntryDecoder.h"

namespace jitsym {

FramePointer framePointerAtEntry(const Architecture &arch, llvm::ArrayRef<uint8_t> code) {
  if (code.empty())
    return FramePointer::Unknown;
  code = code.take_front(kFramePointerProbeBytes);
  switch (arch.id) {
  case ArchId::X86_64:
    return x86_64EntryRule(code);
  case ArchId::AArch64:
    return aarch64EntryRule(code);
  }
  return FramePointer::Unknown;
}

std::vector<AddressRange> framePointerRanges(const AddressRange &section,
                                             std::vector<FunctionEntry> functions) {
  std::sort(functions.begin(), functions.end(),
            [](const FunctionEntry &a, const FunctionEntry &b) { return a.start < b.start; });
  std::vector<AddressRange> ranges;
  std::optional<uint64_t> open;      // where the current range began
  std::optional<uint64_t> lastStart; // of the last function looked at
  for (const FunctionEntry &function : functions) {
    if (function.start < section.start || function.start >= section.end)
      continue;
    // Functions sharing a start share their bytes: the first one speaks.
    if (lastStart && *lastStart == function.start)
      continue;
    const bool first = !lastStart;
    lastStart = function.start;
    const bool rule = function.framePointer != FramePointer::NotKept;
    if (rule && !open) {
      open = first ? section.start : function.start;
    } else if (!rule && open) {
      ranges.push_back({*open, function.start});
      open.reset();
    }
  }
  if (open)
    ranges.push_back({*open, section.end});
  return ranges;
}

bool coveredBy(const std::vector<AddressRange> &ranges, uint64_t address) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != ranges.begin() && address < std::prev(it)->end;
}

std::vector<AddressRange> framePointerCodeOf(const AddressRange &section,
                                             const std::vector<const Symbol *> &symbols,
                                             SymbolPredicate isData, const EntryProbe &probe) {
  std::vector<FunctionEntry> functions;
  functions.reserve(symbols.size());
  std::optional<uint64_t> lastStart;
  for (const Symbol *symbol : symbols) {
    if (isData(*symbol) || (lastStart && *lastStart == symbol->address))
      continue;
    lastStart = symbol->address;
    functions.push_back({symbol->address, probe(symbol->address, symbol->size)});
  }
  return framePointerRanges(section, std::move(functions));
}

bool frameRuleHolds(const std::vector<AddressRange> &ranges, const Symbol &symbol,
                    const EntryProbe &probe) {
  switch (probe(symbol.address, symbol.size)) {
  case FramePointer::Kept:
    return coveredBy(ranges, symbol.address);
  case FramePointer::NotKept:
    return !coveredBy(ranges, symbol.address);
  case FramePointer::Unknown:
    return true; // either rule: nothing better is known
  }
  return true;
}

} // namespace jitsym
