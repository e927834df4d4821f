// Which code of a region gets the frame-pointer rule, from what its
// functions' entries say (arch/EntryRule.h).
#include "jitsym/plan/FramePointer.h"

#include <algorithm>
#include <optional>


namespace jitsym {

FramePointerCode framePointerRanges(const AddressRange &section,
                                    std::vector<FunctionEntry> functions,
                                    std::optional<RuntimeFrame> runtimeFrame) {
  std::stable_sort(functions.begin(), functions.end(),
                   [](const FunctionEntry &a, const FunctionEntry &b) { return a.start < b.start; });
  FramePointerCode code;
  // Where the current range began (plain values: GCC 12 takes an optional
  // beside the others for maybe uninitialized).
  bool isOpen = false;
  uint64_t open = 0;
  std::optional<uint64_t> openRuntime; // where the current runtime-frame range began
  std::optional<uint64_t> lastStart;   // of the last function looked at
  for (const FunctionEntry &function : functions) {
    if (function.start < section.start || function.start >= section.end)
      continue;
    // Functions sharing a start share their bytes: the first one speaks.
    if (lastStart && *lastStart == function.start)
      continue;
    const bool first = !lastStart;
    lastStart = function.start;
    const bool onRuntimeFrame =
        function.rule.framePointer == FramePointer::RuntimeFrame && runtimeFrame;
    if (onRuntimeFrame && !openRuntime) {
      openRuntime = function.start;
      code.runtimeFrame = runtimeFrame;
    } else if (!onRuntimeFrame && openRuntime) {
      code.runtimeRanges.push_back({*openRuntime, function.start});
      openRuntime.reset();
    }
    const bool rule = function.rule.framePointer == FramePointer::Kept ||
                      function.rule.framePointer == FramePointer::Unknown;
    // A prologue is described by an FDE of its own, from the function's start.
    if (isOpen && (!rule || function.rule.prologue)) {
      code.ranges.push_back({open, function.start});
      isOpen = false;
    }
    if (rule && !isOpen) {
      open = first && !function.rule.prologue ? section.start : function.start;
      isOpen = true;
    }
    if (function.rule.prologue)
      code.prologues.emplace_back(function.start, *function.rule.prologue);
  }
  if (isOpen)
    code.ranges.push_back({open, section.end});
  if (openRuntime)
    code.runtimeRanges.push_back({*openRuntime, section.end});
  return code;
}

bool FramePointerCode::runsOnRuntimeFrame(uint64_t address) const {
  auto it = std::upper_bound(runtimeRanges.begin(), runtimeRanges.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != runtimeRanges.begin() && address < std::prev(it)->end;
}

bool FramePointerCode::covers(uint64_t address) const {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](uint64_t a, const AddressRange &r) { return a < r.start; });
  return it != ranges.begin() && address < std::prev(it)->end;
}

EntryRule FramePointerCode::ruleAt(uint64_t start) const {
  EntryRule rule;
  if (runsOnRuntimeFrame(start)) {
    rule.framePointer = FramePointer::RuntimeFrame;
    return rule;
  }
  rule.framePointer = covers(start) ? FramePointer::Kept : FramePointer::NotKept;
  auto it = std::lower_bound(prologues.begin(), prologues.end(), start,
                             [](const auto &p, uint64_t a) { return p.first < a; });
  if (it != prologues.end() && it->first == start)
    rule.prologue = it->second;
  return rule;
}

FramePointerCode framePointerCodeOf(const AddressRange &section,
                                    const std::vector<const Symbol *> &symbols,
                                    SymbolPredicate isData, const EntryProbe &probe,
                                    std::optional<RuntimeFrame> runtimeFrame) {
  std::vector<FunctionEntry> functions;
  functions.reserve(symbols.size());
  std::optional<uint64_t> lastStart;
  for (const Symbol *symbol : symbols) {
    if (isData(*symbol) || (lastStart && *lastStart == symbol->address))
      continue;
    lastStart = symbol->address;
    functions.push_back({symbol->address, probe(symbol->address, symbol->size)});
  }
  return framePointerRanges(section, std::move(functions), std::move(runtimeFrame));
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
    return !code.covers(symbol.address) && !code.runsOnRuntimeFrame(symbol.address);
  case FramePointer::RuntimeFrame:
    return code.runsOnRuntimeFrame(symbol.address);
  case FramePointer::Unknown:
    return true; // either rule: nothing better is known
  }
  return true;
}

} // namespace jitsym
