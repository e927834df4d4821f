// Whether JIT code keeps a frame pointer, read from its first instructions,
// and so which of a region's code gets the frame-pointer unwind rule (issue
// 24). A region-wide "CFA = rbp+16" rule is right for code that sets up rbp
// as V8's does and wrong for code that does not (Mono's, HotSpot's, which
// uses rbp as a general register): there LLDB must be left to its own
// instruction analysis, which it runs only where no FDE covers the function.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "jitsym/arch/Architecture.h"
#include "jitsym/arch/EntryRule.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/plan/RuntimeFrame.h"
#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

// A function of a region, by its start, and what its entry says.
struct FunctionEntry {
  uint64_t start = 0;
  EntryRule rule;
};

// The code of a region that gets the frame-pointer rule, and the prologues
// its FDEs describe.
struct FramePointerCode {
  // Sorted and disjoint: from each function that keeps a frame pointer (or
  // cannot be told) up to the next function that does not, or that has a
  // prologue of its own. A range starts at a function's start or at the
  // section's start (only .eh_frame FDEs that start where a symbol does make
  // no synthetic symbols: UnwindObject.h).
  std::vector<AddressRange> ranges;
  // By function start, ascending; each starts a range.
  std::vector<std::pair<uint64_t, Prologue>> prologues;
  // The code that runs on a runtime's frame, sorted and disjoint, from a
  // function's start to the next function's that does not; and that frame
  // (one per process: the functions that run on one all say the same).
  std::vector<AddressRange> runtimeRanges;
  std::optional<RuntimeFrame> runtimeFrame;

  bool covers(uint64_t address) const;
  bool runsOnRuntimeFrame(uint64_t address) const;
  // What the code says of the function that starts at `start`.
  EntryRule ruleAt(uint64_t start) const;
};

// The frame-pointer code of `section` from its functions' entries. Code
// before the first function gets the first function's rule. Functions need
// not be sorted; several may share a start (the first one speaks). Those on
// a runtime's frame get `runtimeFrame`'s rule (without one, none).
FramePointerCode framePointerRanges(const AddressRange &section,
                                    std::vector<FunctionEntry> functions,
                                    std::optional<RuntimeFrame> runtimeFrame = std::nullopt);

// The frame-pointer code of the region `section` with `symbols` (in address
// order; data symbols, by `isData`, are not code and say nothing).
FramePointerCode framePointerCodeOf(const AddressRange &section,
                                    const std::vector<const Symbol *> &symbols,
                                    SymbolPredicate isData, const EntryProbe &probe,
                                    std::optional<RuntimeFrame> runtimeFrame = std::nullopt);

// Whether code that starts at `symbol` gets the right rule from `code`, a
// module's frame-pointer code made before the symbol was known: a symbol
// whose rule it does not give needs its region made anew. (Its prologue,
// if any, is described when the region is made anew for another reason.)
bool frameRuleHolds(const FramePointerCode &code, const Symbol &symbol, const EntryProbe &probe);

} // namespace jitsym
