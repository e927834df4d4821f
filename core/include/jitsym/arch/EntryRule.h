// What a function's entry says of its frame: whether its prologue keeps a
// frame pointer (and where, for the architectures whose FDEs must describe the
// prologue), read from its first instructions with LLVM's disassembler for
// the architecture. plan/FramePointer.h turns the answers into a region's
// unwind rules (issue 24).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "jitsym/arch/Architecture.h"
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

// What a function's entry says, by its start and size (0: unknown); the
// reader of the bytes decides where they come from.
using EntryProbe = std::function<EntryRule(uint64_t start, uint64_t size)>;

} // namespace jitsym
