// The frame-pointer prologue as JIT compilers write it, and code that keeps
// no frame pointer.
#include "jitsym/plan/FramePointer.h"

#include <gtest/gtest.h>

#include <vector>

using namespace jitsym;

namespace {

FramePointer of(std::vector<uint8_t> bytes) { return framePointerAtEntry(bytes); }

} // namespace

TEST(FramePointer, PushRbpMovRbpRspKeepsIt) {
  // V8 (TurboFan, Sparkplug), tinyjit, gcc -O0: push rbp; mov rbp, rsp; ...
  EXPECT_EQ(of({0x55, 0x48, 0x89, 0xe5, 0x56, 0x57}), FramePointer::Kept);
  EXPECT_EQ(of({0x55, 0x48, 0x8b, 0xec}), FramePointer::Kept); // the other encoding
  // After endbr64 (CET-enabled compilers).
  EXPECT_EQ(of({0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5}), FramePointer::Kept);
}

TEST(FramePointer, OtherEntriesDoNot) {
  // HotSpot C2: a stack bang, then push rbp; sub rsp, N (rbp is a general register).
  EXPECT_EQ(of({0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55}), FramePointer::NotKept);
  // Mono: sub rsp, N first.
  EXPECT_EQ(of({0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x1c, 0x24}), FramePointer::NotKept);
  // push rbp then not mov rbp, rsp (rbp saved as a callee-saved register).
  EXPECT_EQ(of({0x55, 0x48, 0x83, 0xec, 0x20}), FramePointer::NotKept);
  // A leaf that returns at once.
  EXPECT_EQ(of({0xc3}), FramePointer::NotKept);
}

TEST(FramePointer, TooFewBytesToTell) {
  EXPECT_EQ(of({}), FramePointer::Unknown);
  EXPECT_EQ(of({0xf3, 0x0f, 0x1e, 0xfa}), FramePointer::Unknown);
  EXPECT_EQ(of({0x55}), FramePointer::Unknown);
  EXPECT_EQ(of({0x55, 0x48, 0x89}), FramePointer::Unknown);
}
