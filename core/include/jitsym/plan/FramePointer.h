// Whether JIT code keeps a frame pointer, read from its first instructions:
// the input of the unwind rule each function gets (issue 24). A window-wide
// "CFA = rbp+16" rule is right for code that sets up rbp as V8's does and
// wrong for code that does not (Mono's, HotSpot C2's, which uses rbp as a
// general register): there LLDB must be left to its own instruction analysis.
#pragma once

#include <cstdint>

#include "llvm/ADT/ArrayRef.h"

namespace jitsym {

enum class FramePointer {
  Kept,    // the entry sets up the frame pointer: the frame-pointer rule holds
  NotKept, // it does not: no rule of ours, LLDB analyses the code
  Unknown, // too few bytes to tell
};

// x86-64, from the function's first bytes: an optional `endbr64`, then
// `push rbp` and `mov rbp, rsp` (either encoding) is Kept; anything else is
// NotKept. Pure: the caller reads the bytes (a jitdump record's code, or the
// process's memory).
FramePointer framePointerAtEntry(llvm::ArrayRef<uint8_t> code);

// How many bytes framePointerAtEntry reads at most.
constexpr size_t kFramePointerProbeBytes = 8;

} // namespace jitsym
