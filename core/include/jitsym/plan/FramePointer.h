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
#include "jitsym/plan/Regions.h"
#include "jitsym/plan/RuntimeFrame.h"
#include "jitsym/symbols/SymbolTable.h"
#include "llvm/ADT/ArrayRef.h"

namespace jitsym {

enum class FramePointer {
  Kept,    // the prologue sets up the frame pointer: the frame-pointer rule holds
  NotKept, // it does not: no rule of ours, LLDB analyses the code
  Unknown, // the entry does not say (or cannot be read): the frame-pointer
           // rule, what LLDB uses for code it knows nothing about
  RuntimeFrame, // the runtime's code runs on a frame of the runtime's own
                // (RuntimeFrame.h: PHP's JIT on execute_ex's): that frame's rule
};

// Where a kept frame pointer's prologue makes the frame, as offsets from the
// function's start, for an architecture whose FDE LLDB takes at every
// instruction (Architecture::fdeHoldsAtEntry): the FDE then describes the
// prologue's instructions, where the frame-pointer rule does not hold yet.
struct Prologue {
  uint16_t recordStored = 0;    // the instruction after the frame record's store
  uint16_t frameSize = 0;       // what that store took off the stack pointer
  uint16_t framePointerSet = 0; // the instruction after the frame pointer's move
  bool operator==(const Prologue &o) const {
    return recordStored == o.recordStored && frameSize == o.frameSize &&
           framePointerSet == o.framePointerSet;
  }
};

// What a function's entry says: its frame pointer, and where the prologue
// is when it is kept and the architecture's FDEs must describe it.
struct EntryRule {
  FramePointer framePointer = FramePointer::Unknown;
  std::optional<Prologue> prologue;
  bool operator==(const EntryRule &o) const {
    return framePointer == o.framePointer && prologue == o.prologue;
  }
};

// From the function's first bytes, decoded with LLVM's disassembler for
// `arch` along the path from the start. Kept when the frame-pointer prologue
// comes first (x86-64: `push rbp; mov rbp, rsp`; aarch64: `stp x29, x30,
// [sp, #-N]!; mov x29, sp`), after conditional branches, hints and
// instructions that move neither the stack nor the frame pointer (V8's
// optimized code checks whether it was deoptimized before it builds its
// frame). NotKept on evidence of another frame: the stack pointer moved
// otherwise (`sub rsp, N`: Mono; `sub sp, sp, #N`), the frame pointer
// written, the frame-pointer push not followed by its move (HotSpot without
// -XX:+PreserveFramePointer), or (x86-64) other registers pushed before (rbp+16
// is then not the return address). Unknown otherwise: a call, jump or return
// first (V8's baseline code calls its prologue; HotSpot's code can start with
// a jump patched in; the symbol of HotSpot's interpreter starts with data),
// bytes that do not decode, or 64 bytes with none of these. Pure: the caller
// reads the bytes (a jitdump record's code, or the process's memory).
EntryRule entryRuleAt(const Architecture &arch, llvm::ArrayRef<uint8_t> code);

// How many bytes entryRuleAt looks at, at most.
constexpr size_t kFramePointerProbeBytes = 64;

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

// What a function's entry says, by its start and size (0: unknown); the
// reader of the bytes decides where they come from.
using EntryProbe = std::function<EntryRule(uint64_t start, uint64_t size)>;

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
