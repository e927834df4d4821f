// The frame-pointer prologue as JIT compilers write it, code that keeps no
// frame pointer, and which parts of a region get the frame-pointer rule.
#include "jitsym/plan/FramePointer.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace jitsym;

namespace {

FramePointer of(std::vector<uint8_t> bytes) { return entryRuleAt(kX86_64, bytes).framePointer; }

// Pads a prologue to the bytes a reader gives (the next instructions).
std::vector<uint8_t> withNops(std::vector<uint8_t> bytes) {
  bytes.resize(kFramePointerProbeBytes, 0x90);
  return bytes;
}

} // namespace

TEST(FramePointer, PushRbpMovRbpRspKeepsIt) {
  // tinyjit, gcc -O0: push rbp; mov rbp, rsp; ...
  EXPECT_EQ(of({0x55, 0x48, 0x89, 0xe5, 0x56, 0x57}), FramePointer::Kept);
  EXPECT_EQ(of({0x55, 0x48, 0x8b, 0xec}), FramePointer::Kept); // the other encoding
  // After endbr64 (CET-enabled compilers).
  EXPECT_EQ(of({0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5}), FramePointer::Kept);
}

TEST(FramePointer, AfterChecksThatMoveNothing) {
  // Node 20's TurboFan code (bytes read from a live process): mov rbx,
  // [rcx-8]; test byte [rbx+0x35], 1; jnz (to the deoptimizer); then the frame.
  EXPECT_EQ(of(withNops({0x48, 0x8b, 0x59, 0xf8, 0xf6, 0x43, 0x35, 0x01, 0x0f, 0x85, 0x32,
                         0x69, 0xe4, 0x1f, 0x55, 0x48, 0x89, 0xe5, 0x56, 0x57, 0x50})),
            FramePointer::Kept);
}

TEST(FramePointer, OtherFramesDoNot) {
  // HotSpot: a stack bang, then push rbp; sub rsp, N (rbp is a general register).
  EXPECT_EQ(of(withNops({0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec,
                         0x20})),
            FramePointer::NotKept);
  // Mono: sub rsp, N first (the fast path, and after a check).
  EXPECT_EQ(of({0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0x1c, 0x24}), FramePointer::NotKept);
  EXPECT_EQ(of(withNops({0x48, 0x85, 0xc0, 0x48, 0x83, 0xec, 0x18})), FramePointer::NotKept);
  // push rbp then not mov rbp, rsp (rbp saved as a callee-saved register).
  EXPECT_EQ(of(withNops({0x55, 0x48, 0x83, 0xec, 0x20})), FramePointer::NotKept);
  // Another register pushed first: the return address is not at rbp+16.
  EXPECT_EQ(of(withNops({0x53, 0x55, 0x48, 0x89, 0xe5})), FramePointer::NotKept);
  // Callee-saved registers pushed, then rsp moved (gcc -O2).
  EXPECT_EQ(of(withNops({0x41, 0x57, 0x53, 0x48, 0x83, 0xec, 0x28})), FramePointer::NotKept);
  // rbp written as a general register.
  EXPECT_EQ(of(withNops({0x48, 0x8b, 0x2f, 0x55, 0x48, 0x89, 0xe5})), FramePointer::NotKept);
}

TEST(FramePointer, CannotTell) {
  EXPECT_EQ(of({}), FramePointer::Unknown);
  // Cut off before the frame is set up, or inside an instruction.
  EXPECT_EQ(of({0xf3, 0x0f, 0x1e, 0xfa}), FramePointer::Unknown);
  EXPECT_EQ(of({0x55}), FramePointer::Unknown);
  EXPECT_EQ(of({0x55, 0x48, 0x89}), FramePointer::Unknown);
  // Not code.
  EXPECT_EQ(of(withNops({0x06})), FramePointer::Unknown); // push es: invalid in 64-bit mode
  // Control leaves first: a return, a jump (HotSpot's patched entry: jmp
  // wrong_method_stub, then its frame), a call (Node 20's baseline code
  // calls an out-of-line prologue: mov ebx, N; mov r12, imm64; call).
  EXPECT_EQ(of({0xc3}), FramePointer::Unknown);
  EXPECT_EQ(of(withNops({0xe9, 0xfb, 0x6d, 0x58, 0x07, 0x90, 0x90, 0x55, 0x48, 0x89, 0xe5})),
            FramePointer::Unknown);
  EXPECT_EQ(of(withNops({0xbb, 0xa8, 0x00, 0x00, 0x00, 0x49, 0xbc, 0x69, 0xa8, 0xa0, 0x9d,
                         0x9b, 0x3c, 0x00, 0x00, 0xe8, 0xec, 0x97, 0xe4, 0x1f})),
            FramePointer::Unknown);
  // 64 bytes that set up no frame at all.
  EXPECT_EQ(of(withNops({})), FramePointer::Unknown);
  // HotSpot's interpreter symbol starts with data (read from a live JVM):
  // push imm32; jg; then more bytes that are not its code.
  EXPECT_EQ(of(withNops({0x68, 0x02, 0xa4, 0xf7, 0xff, 0x7f, 0x00, 0x00, 0xe0, 0x01, 0x00,
                         0x00, 0xff, 0xff})),
            FramePointer::Unknown);
}

namespace {

constexpr AddressRange kSection{0x1000, 0x2000};

std::vector<AddressRange> rangesOf(std::vector<FunctionEntry> functions) {
  return framePointerRanges(kSection, std::move(functions)).ranges;
}

const EntryRule K{FramePointer::Kept, {}}, N{FramePointer::NotKept, {}},
    U{FramePointer::Unknown, {}};

} // namespace

TEST(FramePointerRanges, RunsOfFramePointerCodeBetweenCodeWithout) {
  // The first run covers the section from its start; runs merge; code
  // without a frame pointer and the gap after it are left out.
  EXPECT_EQ(rangesOf({{0x1100, K}, {0x1200, U}, {0x1300, N}, {0x1400, N}, {0x1500, K},
                      {0x1600, N}}),
            (std::vector<AddressRange>{{0x1000, 0x1300}, {0x1500, 0x1600}}));
  // Code without one first: nothing before the first run.
  EXPECT_EQ(rangesOf({{0x1800, K}, {0x1100, N}}),
            (std::vector<AddressRange>{{0x1800, 0x2000}})); // any order
  EXPECT_EQ(rangesOf({{0x1100, N}}), std::vector<AddressRange>{});
  EXPECT_EQ(rangesOf({}), std::vector<AddressRange>{});
  // Aliases share their start: the first one speaks; outside: ignored.
  EXPECT_EQ(rangesOf({{0x1100, K}, {0x1100, N}, {0x0800, N}, {0x2000, N}}),
            (std::vector<AddressRange>{{0x1000, 0x2000}}));
}

TEST(FramePointerRanges, SayWhenNewCodeNeedsItsRegionMadeAnew) {
  FramePointerCode code;
  code.ranges = {{0x1000, 0x1300}, {0x1500, 0x1600}};
  EXPECT_TRUE(code.covers(0x1000));
  EXPECT_TRUE(code.covers(0x12ff));
  EXPECT_FALSE(code.covers(0x1300));
  EXPECT_TRUE(code.covers(0x1500));
  EXPECT_FALSE(code.covers(0x1600));
  EXPECT_FALSE(code.covers(0x0fff));

  std::map<uint64_t, EntryRule> entries = {
      {0x1280, K}, {0x1290, N}, {0x1380, N}, {0x1390, K}, {0x13a0, U}};
  const EntryProbe probe = [&](uint64_t start, uint64_t) { return entries.at(start); };
  auto holds = [&](uint64_t start) {
    const Symbol symbol{start, 16, 1, 0, 0, 0};
    return frameRuleHolds(code, symbol, probe);
  };
  EXPECT_TRUE(holds(0x1280));  // kept, in a run
  EXPECT_FALSE(holds(0x1290)); // not kept, but in a run
  EXPECT_TRUE(holds(0x1380));  // not kept, outside
  EXPECT_FALSE(holds(0x1390)); // kept, outside
  EXPECT_TRUE(holds(0x13a0));  // unknown: either
}

TEST(FramePointerRanges, OfARegionsSymbolsLeaveDataOut) {
  const Symbol code{0x1100, 16, 1, 0, 0, 0}, data{0x1200, 16, 2, 0, 0, 0},
      other{0x1300, 16, 3, 0, 0, 0};
  const std::vector<const Symbol *> symbols = {&code, &data, &other};
  std::vector<uint64_t> probed;
  const EntryProbe probe = [&](uint64_t start, uint64_t size) {
    probed.push_back(start);
    EXPECT_EQ(size, 16u);
    return start == 0x1300 ? N : K;
  };
  auto isData = [&](const Symbol &symbol) { return &symbol == &data; };
  EXPECT_EQ(framePointerCodeOf(kSection, symbols, isData, probe).ranges,
            (std::vector<AddressRange>{{0x1000, 0x1300}}));
  EXPECT_EQ(probed, (std::vector<uint64_t>{0x1100, 0x1300}));
}

namespace {
FramePointer ofAArch64(std::vector<uint8_t> bytes) {
  return entryRuleAt(kAArch64, bytes).framePointer;
}
} // namespace

TEST(FramePointer, AArch64FrameRecordKeepsIt) {
  // gcc -O0 and most JITs: stp x29, x30, [sp, #-N]!; mov x29, sp.
  EXPECT_EQ(ofAArch64({0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91}), FramePointer::Kept);
  EXPECT_EQ(ofAArch64({0xfd, 0x7b, 0xbd, 0xa9, 0xfd, 0x03, 0x00, 0x91}), FramePointer::Kept);
  // After bti c and paciasp (branch protection), and after a check.
  EXPECT_EQ(ofAArch64({0x5f, 0x24, 0x03, 0xd5, 0x3f, 0x23, 0x03, 0xd5, 0x00, 0x02, 0x00, 0xb4,
                       0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91}),
            FramePointer::Kept);
}

TEST(FramePointer, AArch64OtherFramesDoNot) {
  // sub sp, sp, #32 first (a frame without a record, or one placed above).
  EXPECT_EQ(ofAArch64({0xff, 0x83, 0x00, 0xd1, 0xfd, 0x7b, 0x01, 0xa9, 0xfd, 0x43, 0x00, 0x91}),
            FramePointer::NotKept);
  // Other registers pushed first.
  EXPECT_EQ(ofAArch64({0xf3, 0x53, 0xbe, 0xa9, 0xfd, 0x7b, 0xbf, 0xa9}), FramePointer::NotKept);
  // The record pushed, then x29 not set to sp.
  EXPECT_EQ(ofAArch64({0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0xaa}), FramePointer::NotKept);
  // x29 written as a general register.
  EXPECT_EQ(ofAArch64({0xfd, 0x03, 0x00, 0xaa, 0xfd, 0x7b, 0xbf, 0xa9}), FramePointer::NotKept);
}

TEST(FramePointer, AArch64CannotTell) {
  EXPECT_EQ(ofAArch64({}), FramePointer::Unknown);
  EXPECT_EQ(ofAArch64({0x40, 0x00, 0x00, 0x94}), FramePointer::Unknown); // bl first
  EXPECT_EQ(ofAArch64({0xfd, 0x7b}), FramePointer::Unknown);             // cut off
  // The same bytes mean other things to the x86-64 decoder: the architecture decides.
  EXPECT_NE(of({0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91}), FramePointer::Kept);
}

TEST(FramePointer, AArch64PrologueSaysWhereTheFrameIsMade) {
  // stp x29, x30, [sp, #-16]!; mov x29, sp: the record stored by 4, x29 set by 8.
  const std::vector<uint8_t> plain = {0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91};
  EXPECT_EQ(entryRuleAt(kAArch64, plain), (EntryRule{FramePointer::Kept, Prologue{4, 16, 8}}));
  // A 48-byte frame with the record at its bottom: stp x29, x30, [sp, #-48]!.
  const std::vector<uint8_t> larger = {0xfd, 0x7b, 0xbd, 0xa9, 0xfd, 0x03, 0x00, 0x91};
  EXPECT_EQ(entryRuleAt(kAArch64, larger), (EntryRule{FramePointer::Kept, Prologue{4, 48, 8}}));
  // After bti c, paciasp and a check (cbz): the offsets count them.
  const std::vector<uint8_t> later = {0x5f, 0x24, 0x03, 0xd5, 0x3f, 0x23, 0x03, 0xd5, 0x00, 0x02,
                                      0x00, 0xb4, 0xfd, 0x7b, 0xbf, 0xa9, 0xfd, 0x03, 0x00, 0x91};
  EXPECT_EQ(entryRuleAt(kAArch64, later), (EntryRule{FramePointer::Kept, Prologue{16, 16, 20}}));
  // x86-64: LLDB analyses an entry's instructions itself; no prologue to describe.
  EXPECT_FALSE(kX86_64.fdeHoldsAtEntry);
  EXPECT_EQ(entryRuleAt(kX86_64, {0x55, 0x48, 0x89, 0xe5}), (EntryRule{FramePointer::Kept, {}}));
}

TEST(FramePointerRanges, APrologueStartsARangeOfItsOwn) {
  const Prologue p{4, 16, 8};
  const EntryRule P{FramePointer::Kept, p};
  const FramePointerCode code =
      framePointerRanges(kSection, {{0x1100, K}, {0x1200, P}, {0x1300, U}, {0x1400, N}, {0x1500, P}});
  EXPECT_EQ(code.ranges,
            (std::vector<AddressRange>{{0x1000, 0x1200}, {0x1200, 0x1400}, {0x1500, 0x2000}}));
  EXPECT_EQ(code.prologues,
            (std::vector<std::pair<uint64_t, Prologue>>{{0x1200, p}, {0x1500, p}}));
  // A first function with a prologue starts its range itself.
  EXPECT_EQ(framePointerRanges(kSection, {{0x1100, P}}).ranges,
            (std::vector<AddressRange>{{0x1100, 0x2000}}));
  // What a module says of its old functions, prologue included.
  EXPECT_EQ(code.ruleAt(0x1200), P);
  EXPECT_EQ(code.ruleAt(0x1100), K);
  EXPECT_EQ(code.ruleAt(0x1400), N);
  // New code with a prologue the module does not describe keeps the module:
  // its rule holds past the prologue.
  const EntryProbe probe = [&](uint64_t start, uint64_t) { return start == 0x1300 ? P : N; };
  EXPECT_TRUE(frameRuleHolds(code, Symbol{0x1300, 16, 1, 0, 0, 0}, probe));
  EXPECT_FALSE(frameRuleHolds(code, Symbol{0x1100, 16, 1, 0, 0, 0}, probe));
}
