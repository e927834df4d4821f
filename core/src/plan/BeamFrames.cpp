// BEAM's process_main stub and normal_exit as unwind rules (BeamFrames.h).
#include "jitsym/plan/BeamFrames.h"

#include <cstring>

namespace jitsym {
namespace {

// x86-64 DWARF registers.
constexpr uint8_t kRbx = 3, kRbp = 6, kReturnAddress = 16;

// DWARF CFA instructions and expression operators used here.
constexpr uint8_t kDefCfaExpression = 0x0f, kValExpression = 0x16, kSameValue = 0x08,
                  kUndefined = 0x07, kOffset = 0x80;
constexpr uint8_t kBreg0 = 0x70, kDup = 0x12, kDeref = 0x06, kConst8u = 0x0e, kEq = 0x29,
                  kBra = 0x28, kPlusUconst = 0x23, kNe = 0x2e, kSkip = 0x2f, kAnd = 0x1a,
                  kConst1u = 0x08;
constexpr uint8_t kRsp = 7, kR13 = 13;

void branch(std::string &ops, uint8_t op, int16_t offset) {
  ops.push_back(static_cast<char>(op));
  ops.push_back(static_cast<char>(offset & 0xff));
  ops.push_back(static_cast<char>((offset >> 8) & 0xff));
}

void uleb(std::string &out, uint64_t v) {
  do {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<char>(v ? byte | 0x80 : byte));
  } while (v);
}
void sleb(std::string &out, int64_t v) {
  for (bool more = true; more;) {
    uint8_t byte = v & 0x7f;
    v >>= 7;
    more = !((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)));
    out.push_back(static_cast<char>(more ? byte | 0x80 : byte));
  }
}
void u64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(v >> (8 * i)));
}
void expression(std::string &out, const std::string &ops) {
  uleb(out, ops.size());
  out += ops;
}

CallFrameInfo frameOver(uint64_t start, uint64_t end) {
  CallFrameInfo frame;
  frame.start = start;
  frame.end = end;
  frame.codeAlignment = 1;
  frame.dataAlignment = -8;
  frame.returnAddressRegister = kReturnAddress;
  return frame;
}

int32_t s32(std::string_view code, size_t at) {
  int32_t v;
  std::memcpy(&v, code.data() + at, 4);
  return v;
}

} // namespace

std::optional<BeamProcessMain> decodeBeamProcessMain(std::string_view code, uint64_t start) {
  BeamProcessMain stub;
  stub.start = start;
  stub.end = start + code.size();
  size_t at = 0;
  auto take = [&](std::string_view bytes) {
    if (code.substr(at, bytes.size()) != bytes)
      return false;
    at += bytes.size();
    return true;
  };
  // sub $imm32,%rsp; and $-0x40,%rsp; mov %rsp,(%rdi); lea disp(%rsp),%rbx
  if (!take("\x48\x81\xec") || at + 4 > code.size())
    return std::nullopt;
  stub.frameBytes = s32(code, at);
  at += 4;
  if (!take(std::string_view("\x48\x83\xe4\xc0", 4)) || !take("\x48\x89\x27"))
    return std::nullopt;
  if (take("\x48\x8d\x5c\x24") && at + 1 <= code.size()) {
    stub.blockOffset = static_cast<int8_t>(code[at]);
    at += 1;
  } else if (take(std::string_view("\x48\x8d\x9c\x24", 4)) && at + 4 <= code.size()) {
    stub.blockOffset = s32(code, at);
    at += 4;
  } else {
    return std::nullopt;
  }
  stub.bodyStart = start + at;
  // The one `jmp *%rax` (ff e0) that dispatches into Erlang code.
  size_t found = std::string_view::npos, count = 0;
  for (size_t i = at; i + 2 <= code.size(); ++i)
    if (code[i] == '\xff' && code[i + 1] == '\xe0') {
      found = i;
      ++count;
    }
  if (count != 1 || stub.frameBytes <= 0 || stub.frameBytes % 16 != 0 || stub.blockOffset < 0)
    return std::nullopt;
  stub.resume = start + found + 2;
  return stub;
}

std::optional<uint64_t> returnAddressOfOnlyCall(std::string_view text, uint64_t textAddress,
                                                uint64_t target) {
  std::optional<uint64_t> found;
  for (size_t i = 0; i + 5 <= text.size(); ++i) {
    if (text[i] != '\xe8')
      continue;
    const uint64_t next = textAddress + i + 5;
    if (next + static_cast<int64_t>(s32(text, i + 1)) != target)
      continue;
    if (found)
      return std::nullopt; // more than one: which returns here is not known
    found = next;
  }
  return found;
}

CallFrameInfo beamProcessMainFrame(const BeamProcessMain &stub, uint64_t returnAddress) {
  CallFrameInfo frame = frameOver(stub.bodyStart, stub.end);
  std::string &out = frame.instructions;
  // The first slot that may hold the return address: the block (rbx -
  // blockOffset) + frameBytes + 8; the others 16, 32, 48 bytes above. Each
  // is tried in turn; the CFA is the slot's address + 8.
  std::string ops;
  ops.push_back(static_cast<char>(kBreg0 + kRbx));
  sleb(ops, stub.frameBytes + 8 - stub.blockOffset);
  for (int slot = 0; slot < 3; ++slot) {
    ops.push_back(static_cast<char>(kDup));
    ops.push_back(static_cast<char>(kDeref));
    ops.push_back(static_cast<char>(kConst8u));
    u64(ops, returnAddress);
    ops.push_back(static_cast<char>(kEq));
    // Found: skip this try's step and the tries after it (17 bytes each),
    // to the last `plus_uconst 8`.
    const int16_t skip = static_cast<int16_t>((2 - slot) * 17 + 2);
    ops.push_back(static_cast<char>(kBra));
    ops.push_back(static_cast<char>(skip & 0xff));
    ops.push_back(static_cast<char>(skip >> 8));
    ops.push_back(static_cast<char>(kPlusUconst));
    ops.push_back(16);
  }
  ops.push_back(static_cast<char>(kPlusUconst));
  ops.push_back(8);
  out.push_back(static_cast<char>(kDefCfaExpression));
  expression(out, ops);
  out.push_back(static_cast<char>(kOffset | kReturnAddress)); // rip = [CFA - 8]
  uleb(out, 1);
  out.push_back(static_cast<char>(kOffset | kRbx)); // the caller's rbx = [CFA - 16]
  uleb(out, 2);
  out.push_back(static_cast<char>(kUndefined));
  uleb(out, kRbp);
  return frame;
}

CallFrameInfo beamProcessExitFrame(uint64_t start, uint64_t end, const BeamProcessMain &stub) {
  CallFrameInfo frame = frameOver(start, end);
  std::string &out = frame.instructions;
  std::string cfa;
  cfa.push_back(static_cast<char>(kBreg0 + kRbx));
  sleb(cfa, -stub.blockOffset);
  out.push_back(static_cast<char>(kDefCfaExpression));
  expression(out, cfa);
  std::string resume;
  resume.push_back(static_cast<char>(kConst8u));
  u64(resume, stub.resume);
  out.push_back(static_cast<char>(kValExpression));
  uleb(out, kReturnAddress);
  expression(out, resume);
  out.push_back(static_cast<char>(kSameValue));
  uleb(out, kRbx);
  out.push_back(static_cast<char>(kUndefined));
  uleb(out, kRbp);
  return frame;
}

CallFrameInfo beamScanFrame(uint64_t start, uint64_t end, int64_t blockOffset,
                            std::optional<int64_t> savedStack) {
  CallFrameInfo frame = frameOver(start, end);
  // The C stack's base: from it, where the Erlang stack pointer is.
  std::string onC; // -> the Erlang stack pointer, on the C stack
  if (savedStack) {
    onC.push_back(static_cast<char>(kBreg0 + kR13));
    sleb(onC, *savedStack);
    onC.push_back(static_cast<char>(kDeref));
  } else {
    onC.push_back(static_cast<char>(kBreg0 + kRbp));
    sleb(onC, 0);
  }
  std::string onErlang; // -> rsp
  onErlang.push_back(static_cast<char>(kBreg0 + kRsp));
  sleb(onErlang, 0);
  // The scan: dup; deref; const1u 3; and; bra next; plus_uconst 8; skip end;
  // next: plus_uconst 8; skip loop.
  std::string scan;
  scan.push_back(static_cast<char>(kDup));
  scan.push_back(static_cast<char>(kDeref));
  scan.push_back(static_cast<char>(kConst1u));
  scan.push_back(3);
  scan.push_back(static_cast<char>(kAnd));
  branch(scan, kBra, 5); // over the found case (plus_uconst 8; skip end)
  scan.push_back(static_cast<char>(kPlusUconst));
  scan.push_back(8);
  branch(scan, kSkip, 5); // over the next case: the end
  scan.push_back(static_cast<char>(kPlusUconst));
  scan.push_back(8);
  const int16_t back = -static_cast<int16_t>(scan.size() + 3);
  branch(scan, kSkip, back); // to the loop's dup

  std::string ops;
  ops.push_back(static_cast<char>(kBreg0 + kRsp));
  sleb(ops, 0);
  ops.push_back(static_cast<char>(kBreg0 + kRbx));
  sleb(ops, -blockOffset);
  ops.push_back(static_cast<char>(kNe));
  branch(ops, kBra, static_cast<int16_t>(onC.size() + 3)); // on the Erlang stack
  ops += onC;
  branch(ops, kSkip, static_cast<int16_t>(onErlang.size()));
  ops += onErlang;
  ops += scan;
  std::string &out = frame.instructions;
  out.push_back(static_cast<char>(kDefCfaExpression));
  expression(out, ops);
  out.push_back(static_cast<char>(kOffset | kReturnAddress)); // rip = [CFA - 8]
  uleb(out, 1);
  return frame;
}

std::optional<int64_t> decodeBeamSavedStack(std::string_view code) {
  std::optional<int64_t> found;
  for (size_t i = 0; i + 4 <= code.size(); ++i)
    if (code.substr(i, 3) == "\x49\x8b\x65") {
      const int64_t offset = static_cast<int8_t>(code[i + 3]);
      if (found && *found != offset)
        return std::nullopt;
      found = offset;
    }
  if (found && *found <= 0)
    return std::nullopt;
  return found;
}

bool beamStubKeepsFramePointers(std::string_view code) {
  return code.find(std::string_view("\x49\x8b\x6d", 3)) != std::string_view::npos;
}

bool isBeamBifCallStub(std::string_view name) {
  if (!name.empty() && name[0] == '$')
    name.remove_prefix(1);
  return name == "global::call_light_bif_shared";
}

bool isBeamProcessMain(std::string_view name) {
  if (!name.empty() && name[0] == '$')
    name.remove_prefix(1);
  return name == "global::process_main";
}

bool isBeamNormalExit(std::string_view name) {
  if (!name.empty() && name[0] == '$')
    name.remove_prefix(1);
  return name == "erts_beamasm:normal_exit/0" ||
         name == "erts_beamasm:normal_exit/0-CodeInfoPrologue";
}

} // namespace jitsym
