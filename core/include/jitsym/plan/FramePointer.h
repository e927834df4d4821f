// Whether JIT code keeps a frame pointer, read from its first instructions,
// and so which of a region's code gets the frame-pointer unwind rule (issue
// 24). A region-wide "CFA = rbp+16" rule is right for code that sets up rbp
// as V8's does and wrong for code that does not (Mono's, HotSpot's, which
// uses rbp as a general register): there LLDB must be left to its own
// instruction analysis, which it runs only where no FDE covers the function.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "jitsym/arch/Architecture.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/symbols/SymbolTable.h"
#include "llvm/ADT/ArrayRef.h"

namespace jitsym {

enum class FramePointer {
  Kept,    // the prologue sets up the frame pointer: the frame-pointer rule holds
  NotKept, // it does not: no rule of ours, LLDB analyses the code
  Unknown, // the entry does not say (or cannot be read): the frame-pointer
           // rule, what LLDB uses for code it knows nothing about
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
FramePointer framePointerAtEntry(const Architecture &arch, llvm::ArrayRef<uint8_t> code);

// How many bytes framePointerAtEntry looks at, at most.
constexpr size_t kFramePointerProbeBytes = 64;

// A function of a region, by its start, and what its entry says.
struct FunctionEntry {
  uint64_t start = 0;
  FramePointer framePointer = FramePointer::Unknown;
};

// The parts of `section` whose code gets the frame-pointer rule, sorted and
// disjoint: from each function that keeps a frame pointer (or cannot be
// told) up to the next function that does not. A range starts at a
// function's start or at the section's start (only .eh_frame FDEs that
// start where a symbol does make no synthetic symbols: UnwindObject.h);
// code before the first function gets the first function's rule. Functions
// need not be sorted; several may share a start.
std::vector<AddressRange> framePointerRanges(const AddressRange &section,
                                             std::vector<FunctionEntry> functions);

// Whether `ranges` (as framePointerRanges gives them) cover `address`.
bool coveredBy(const std::vector<AddressRange> &ranges, uint64_t address);

// What a function's entry says, by its start and size (0: unknown); the
// reader of the bytes decides where they come from.
using EntryProbe = std::function<FramePointer(uint64_t start, uint64_t size)>;

// The frame-pointer code of the region `section` with `symbols` (in address
// order; data symbols, by `isData`, are not code and say nothing).
std::vector<AddressRange> framePointerCodeOf(const AddressRange &section,
                                             const std::vector<const Symbol *> &symbols,
                                             SymbolPredicate isData, const EntryProbe &probe);

// Whether code that starts at `symbol` gets the right rule from `ranges`, a
// module's frame-pointer code made before the symbol was known: a symbol
// whose rule they do not give needs its region made anew.
bool frameRuleHolds(const std::vector<AddressRange> &ranges, const Symbol &symbol,
                    const EntryProbe &probe);

} // namespace jitsym
