// Which code keeps a frame pointer: each architecture's entry decoder
// (src/arch/EntryDecoder.cpp), and the ranges a region's rule covers.
#include "jitsym/plan/FramePointer.h"

#include <algorithm>
#include <optional>

#include "../arch/EntryDecoder.h"

namespace jitsym {

EntryRule entryRuleAt(const Architecture &arch, llvm::ArrayRef<uint8_t> code) {
  if (code.empty())
    return {};
  code = code.take_front(kFramePointerProbeBytes);
  switch (arch.id) {
  case ArchId::X86_64:
    return x86_64EntryRule(code);
  case ArchId::AArch64:
    return aarch64EntryRule(code);
  }
  return {};
}

FramePointerCode framePointerRanges(const AddressRange &section,
                                    std::vector<FunctionEntry> functions) {
  std::stable_sort(functions.begin(), functions.end(),
                   [](const FunctionEntry &a, const FunctionEntry &b) { return a.start < b.start; });
  FramePointerCode code;
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
    const bool rule = function.rule.framePointer != FramePointer::NotKept;
    // A prologue is described by an FDE of its own, from the function's start.
    if (open && (!rule || function.rule.prologue)) {
      code.ranges.push_back({*open, function.start});
      open.reset();
    }
    if (rule && !open)
      open = first && !function.rule.prologue ? section.start : function.start;
    if (function.rule.prologue)
      code.prologues.emplace_back(function.start, *function.rule.prologue);
  }
  if (open)
    code.ranges.push_back({*open, section.end});
  return code;
}

bool FramePointerCode::covers(uint64_t address) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != ranges.begin() && address < std::prev(it)->end;
}

EntryRule FramePointerCode::ruleAt(uint64_t start) const {
  EntryRule rule;
  rule.framePointer = covers(start) ? FramePointer::Kept : FramePointer::NotKept;
  auto it = std::lower_bound(prologues.begin(), prologues.end(), start,
                             [](const auto &p, uint64_t a) { return p.first < a; });
  if (it != prologues.end() && it->first == start)
    rule.prologue = it->second;
  return rule;
}

FramePointerCode framePointerCodeOf(const AddressRange &section,
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

bool frameRuleHolds(const FramePointerCode &code, const Symbol &symbol, const EntryProbe &probe) {
  const EntryRule rule = probe(symbol.address, symbol.size);
  switch (rule.framePointer) {
  case FramePointer::Kept:
    // A prologue the FDEs do not describe yet is not worth a remake: LLDB
    // moves a breakpoint location out of a module made anew under the same
    // address with its stop reason broken ("breakpoint 1."), and the rule
    // holds past the prologue. It is described when the region is made anew.
    return code.covers(symbol.address);
  case FramePointer::NotKept:
    return !code.covers(symbol.address);
  case FramePointer::Unknown:
    return true; // either rule: nothing better is known
  }
  return true;
}

} // namespace jitsym
