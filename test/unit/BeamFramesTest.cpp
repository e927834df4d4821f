// BEAM's process_main stub and normal_exit as unwind rules (core
// plan/BeamFrames.h). The stub's bytes are OTP 25.2's (Debian's beam.smp,
// erts-13.1.5), disassembled at 0x7fffb6ce1670 in a live process.
#include "jitsym/plan/BeamFrames.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace jitsym;

namespace {

constexpr uint64_t kStub = 0x7fffb6ce1670;

// sub $0x4110,%rsp; and $-0x40,%rsp; mov %rsp,(%rdi); lea 0x80(%rsp),%rbx;
// then filler, the dispatching `jmp *%rax` at +0x19e, and filler to 0x200.
std::string stubCode() {
  std::string code("\x48\x81\xec\x10\x41\x00\x00"
                   "\x48\x83\xe4\xc0"
                   "\x48\x89\x27"
                   "\x48\x8d\x9c\x24\x80\x00\x00\x00",
                   22);
  code.resize(0x19e, '\x90');
  code += "\xff\xe0";
  code.resize(0x200, '\xcc');
  return code;
}

// A DWARF expression's evaluation, enough for the operators the rules use.
uint64_t evaluate(std::string_view ops, const std::map<int, uint64_t> &registers,
                  const std::function<uint64_t(uint64_t)> &memory) {
  std::vector<uint64_t> stack;
  size_t at = 0;
  auto sleb = [&] {
    int64_t v = 0;
    int shift = 0;
    uint8_t byte;
    do {
      byte = static_cast<uint8_t>(ops[at++]);
      v |= int64_t(byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40))
      v |= -(int64_t(1) << shift);
    return v;
  };
  while (at < ops.size()) {
    const uint8_t op = static_cast<uint8_t>(ops[at++]);
    if (op >= 0x70 && op <= 0x8f) { // bregN
      stack.push_back(registers.at(op - 0x70) + sleb());
    } else if (op == 0x12) {
      stack.push_back(stack.back());
    } else if (op == 0x06) {
      stack.back() = memory(stack.back());
    } else if (op == 0x0e) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i)
        v |= uint64_t(static_cast<uint8_t>(ops[at++])) << (8 * i);
      stack.push_back(v);
    } else if (op == 0x29) {
      const uint64_t b = stack.back();
      stack.pop_back();
      stack.back() = stack.back() == b;
    } else if (op == 0x2e || op == 0x1a) { // ne, and
      const uint64_t b = stack.back();
      stack.pop_back();
      stack.back() = op == 0x2e ? stack.back() != b : stack.back() & b;
    } else if (op == 0x08) { // const1u
      stack.push_back(static_cast<uint8_t>(ops[at++]));
    } else if (op == 0x2f) { // skip
      const int16_t skip = static_cast<int16_t>(static_cast<uint8_t>(ops[at]) |
                                                (static_cast<uint8_t>(ops[at + 1]) << 8));
      at += 2 + skip;
    } else if (op == 0x28) {
      const int16_t skip = static_cast<int16_t>(static_cast<uint8_t>(ops[at]) |
                                                (static_cast<uint8_t>(ops[at + 1]) << 8));
      at += 2;
      const uint64_t taken = stack.back();
      stack.pop_back();
      if (taken)
        at += skip;
    } else if (op == 0x23) {
      stack.back() += static_cast<uint8_t>(ops[at++]); // small operands only
    } else {
      ADD_FAILURE() << "operator " << int(op);
      return 0;
    }
  }
  return stack.back();
}

} // namespace

TEST(BeamFrames, TheStubSaysWhereItsBlockAndDispatchAre) {
  const auto stub = decodeBeamProcessMain(stubCode(), kStub);
  ASSERT_TRUE(stub);
  EXPECT_EQ(stub->frameBytes, 0x4110);
  EXPECT_EQ(stub->blockOffset, 0x80);
  EXPECT_EQ(stub->bodyStart, kStub + 22);
  EXPECT_EQ(stub->resume, kStub + 0x1a0);
  EXPECT_EQ(stub->end, kStub + 0x200);
  // Not BeamAsm's prologue, or two dispatches: no rules.
  std::string other = stubCode();
  other[0] = '\x55';
  EXPECT_FALSE(decodeBeamProcessMain(other, kStub));
  std::string twice = stubCode();
  twice.replace(0x100, 2, "\xff\xe0");
  EXPECT_FALSE(decodeBeamProcessMain(twice, kStub));
  EXPECT_FALSE(decodeBeamProcessMain(stubCode().substr(0, 10), kStub));
}

TEST(BeamFrames, TheOnlyCallOfProcessMain) {
  // call rel32 at 0x78dbd to 0x987d0 (sched_thread_func's, in beam.smp).
  std::string text(0x100, '\x90');
  const uint64_t textAddress = 0x78d00, target = 0x987d0;
  const int32_t rel = static_cast<int32_t>(target - (0x78dbd + 5));
  text[0xbd] = '\xe8';
  std::memcpy(&text[0xbe], &rel, 4);
  EXPECT_EQ(returnAddressOfOnlyCall(text, textAddress, target), 0x78dc2u);
  EXPECT_FALSE(returnAddressOfOnlyCall(text, textAddress, target + 1));
  std::string two = text;
  const int32_t rel2 = static_cast<int32_t>(target - (0x78d10 + 5));
  two[0x10] = '\xe8';
  std::memcpy(&two[0x11], &rel2, 4);
  EXPECT_FALSE(returnAddressOfOnlyCall(two, textAddress, target)); // which one returns?
}

TEST(BeamFrames, TheStubsReturnAddressIsFoundInItsSlot) {
  // Measured: rbx 0x7fffb5e76d80 (block 0x7fffb5e76d00), the return address
  // 0x5555555ccdc2 at block + 0x4148, a stale code address at + 0x4118.
  const auto stub = decodeBeamProcessMain(stubCode(), kStub);
  ASSERT_TRUE(stub);
  const uint64_t rbx = 0x7fffb5e76d80, block = rbx - 0x80, ra = 0x5555555ccdc2;
  const CallFrameInfo frame = beamProcessMainFrame(*stub, ra);
  EXPECT_EQ(frame.start, stub->bodyStart);
  ASSERT_EQ(frame.instructions[0], '\x0f'); // DW_CFA_def_cfa_expression
  const size_t length = static_cast<uint8_t>(frame.instructions[1]);
  const std::string_view ops(frame.instructions.data() + 2, length);
  for (uint64_t slot : {0x4118, 0x4128, 0x4138, 0x4148}) {
    auto memory = [&](uint64_t address) {
      if (address == block + slot)
        return ra;
      return address == block + 0x4118 ? uint64_t(0x5555555ec7f8) : uint64_t(0);
    };
    EXPECT_EQ(evaluate(ops, {{3, rbx}}, memory), block + slot + 8) << std::hex << slot;
  }
  // rip = [CFA - 8], rbx = [CFA - 16], rbp undefined.
  EXPECT_EQ(frame.instructions.substr(2 + length), std::string("\x90\x01\x83\x02\x07\x06", 6));
}

TEST(BeamFrames, NormalExitLeadsToTheStubsDispatch) {
  const auto stub = decodeBeamProcessMain(stubCode(), kStub);
  ASSERT_TRUE(stub);
  const CallFrameInfo frame = beamProcessExitFrame(0x7fffb6ce1e10, 0x7fffb6ce1e90, *stub);
  ASSERT_EQ(frame.instructions.substr(0, 5), std::string("\x0f\x03\x73\x80\x7f", 5)); // rbx - 0x80
  EXPECT_EQ(frame.instructions.substr(5, 3), std::string("\x16\x10\x09", 3)); // rip = const
  uint64_t resume = 0;
  std::memcpy(&resume, frame.instructions.data() + 9, 8);
  EXPECT_EQ(resume, kStub + 0x1a0);
  EXPECT_TRUE(isBeamProcessMain("$global::process_main"));
  EXPECT_TRUE(isBeamProcessMain("global::process_main"));
  EXPECT_TRUE(isBeamNormalExit("$erts_beamasm:normal_exit/0-CodeInfoPrologue"));
  EXPECT_FALSE(isBeamNormalExit("$prog:leaf/1"));
}

namespace {
// The CFA expression of a rule made by beamScanFrame, evaluated.
uint64_t scanCfa(const CallFrameInfo &frame, const std::map<int, uint64_t> &registers,
                 const std::map<uint64_t, uint64_t> &stack) {
  EXPECT_EQ(frame.instructions[0], '\x0f');
  const size_t length = static_cast<uint8_t>(frame.instructions[1]);
  EXPECT_LT(length, 128u);
  return evaluate(std::string_view(frame.instructions.data() + 2, length), registers,
                  [&](uint64_t address) {
                    auto found = stack.find(address);
                    return found == stack.end() ? uint64_t(0x3b) : found->second; // NIL
                  });
}
} // namespace

TEST(BeamFrames, WithoutFramePointersTheReturnAddressIsTheFirstUntaggedWord) {
  // An Erlang frame: two y registers (a small integer, a boxed pointer),
  // then the return address (4-byte aligned), then the caller's terms.
  const uint64_t rsp = 0x7fffb533ca80, rbx = 0x7fffb5e76d80;
  const std::map<uint64_t, uint64_t> stack = {{rsp, 0x1f},              // small integer 1
                                              {rsp + 8, 0x7fffb5400012}, // boxed
                                              {rsp + 16, 0x7fffb53b8ec4}, // return address
                                              {rsp + 24, 0x7fffb53b8fa4}};
  const CallFrameInfo fn = beamScanFrame(0x1000, 0x2000, 0x80, std::nullopt);
  EXPECT_EQ(scanCfa(fn, {{7, rsp}, {3, rbx}, {6, 0}}, stack), rsp + 24);
  // In C called inline from the function: rsp is the C stack (rbx - 0x80),
  // the Erlang stack pointer is in rbp.
  EXPECT_EQ(scanCfa(fn, {{7, rbx - 0x80}, {3, rbx}, {6, rsp}}, stack), rsp + 24);
  // A stub that saved the Erlang stack pointer into the process (r13 + 0x58)
  // before calling C: from there.
  const uint64_t process = 0x7fffb0000000;
  std::map<uint64_t, uint64_t> withProcess = stack;
  withProcess[process + 0x58] = rsp + 16;
  const CallFrameInfo stub = beamScanFrame(0x3000, 0x3100, 0x80, 0x58);
  EXPECT_EQ(scanCfa(stub, {{7, rbx - 0x80}, {3, rbx}, {13, process}, {6, 0}}, withProcess),
            rsp + 24);
  // rip = [CFA - 8].
  EXPECT_EQ(fn.instructions.substr(2 + static_cast<uint8_t>(fn.instructions[1])),
            std::string("\x90\x01", 2));
}

TEST(BeamFrames, AStubsSavedStackPointer) {
  // mov 0x58(%r13),%rsp after the call of C (OTP 25.2's call_light_bif_shared).
  const std::string code("\xff\xd0\x49\x8b\x65\x58\x4d\x8b\x7d\x50", 10);
  EXPECT_EQ(decodeBeamSavedStack(code), 0x58);
  EXPECT_FALSE(decodeBeamSavedStack(std::string("\xff\xd0", 2)));
  EXPECT_FALSE(decodeBeamSavedStack(code + std::string("\x49\x8b\x65\x60", 4))); // two
}

TEST(BeamFrames, TheBifCallStubSaysWhetherThereAreFramePointers) {
  // After the call of C: map mode restores rsp and rbp, dump mode rsp only.
  EXPECT_TRUE(beamStubKeepsFramePointers(std::string("\xff\xd0\x49\x8b\x65\x58\x49\x8b\x6d\x60", 10)));
  EXPECT_FALSE(beamStubKeepsFramePointers(std::string("\xff\xd0\x49\x8b\x65\x58\x4d\x8b\x7d\x50", 10)));
  EXPECT_TRUE(isBeamBifCallStub("$global::call_light_bif_shared"));
}
