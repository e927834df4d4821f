// libFuzzer target: BEAM's process_main stub and beam's code as read out of
// a process and its binary (core plan/BeamFrames.h): whatever the bytes, the
// decoder stays within them and a rule is made only from what it found.
//
// Input: the stub's code (also scanned as beam's .text for a call of 0x1000).
// Checked invariants:
//  - a decoded stub's body and dispatch lie inside its code, after its
//    prologue, and its frame rules cover the body only;
//  - the one call found is a `call rel32` whose target is the one asked for;
//  - a stub's saved stack pointer is the displacement of a `mov d8(%r13),%rsp`.
#include "jitsym/plan/BeamFrames.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <string_view>

using namespace jitsym;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view code(reinterpret_cast<const char *>(data), size);
  constexpr uint64_t kStart = 0x7fff00000000;
  if (const auto stub = decodeBeamProcessMain(code, kStart)) {
    CHECK(stub->start == kStart && stub->end == kStart + size);
    CHECK(stub->bodyStart > kStart && stub->bodyStart <= stub->end);
    CHECK(stub->resume > stub->bodyStart && stub->resume <= stub->end);
    CHECK(stub->frameBytes > 0 && stub->frameBytes % 16 == 0 && stub->blockOffset >= 0);
    const CallFrameInfo frame = beamProcessMainFrame(*stub, 0x5555555ccdc2);
    CHECK(frame.start == stub->bodyStart && frame.end == stub->end);
    CHECK(!beamProcessExitFrame(kStart, kStart + 8, *stub).instructions.empty());
  }
  if (const auto saved = decodeBeamSavedStack(code)) {
    CHECK(*saved > 0 && *saved < 128);
    CHECK(code.find(std::string_view("\x49\x8b\x65", 3)) != std::string_view::npos);
    CHECK(!beamScanFrame(kStart, kStart + 16, 0x80, saved).instructions.empty());
  }
  if (const auto ra = returnAddressOfOnlyCall(code, kStart, kStart + 0x1000)) {
    const size_t at = *ra - 5 - kStart;
    CHECK(at + 5 <= size && data[at] == 0xe8);
    int32_t rel;
    std::memcpy(&rel, data + at + 1, 4);
    CHECK(*ra + static_cast<int64_t>(rel) == kStart + 0x1000);
  }
  return 0;
}
