// The x86-64 frame-pointer prologue, recognised by its bytes.
#include "jitsym/plan/FramePointer.h"

#include <algorithm>
#include <array>

namespace jitsym {
namespace {

constexpr std::array<uint8_t, 4> kEndbr64 = {0xf3, 0x0f, 0x1e, 0xfa};
constexpr uint8_t kPushRbp = 0x55;
// mov rbp, rsp: 48 89 e5 (MOV r/m64, r64) or 48 8b ec (MOV r64, r/m64).
constexpr std::array<uint8_t, 3> kMovRbpRsp = {0x48, 0x89, 0xe5};
constexpr std::array<uint8_t, 3> kMovRbpRspAlt = {0x48, 0x8b, 0xec};

template <size_t N>
bool startsWith(llvm::ArrayRef<uint8_t> code, const std::array<uint8_t, N> &bytes) {
  return code.size() >= N && std::equal(bytes.begin(), bytes.end(), code.begin());
}

} // namespace

FramePointer framePointerAtEntry(llvm::ArrayRef<uint8_t> code) {
  if (startsWith(code, kEndbr64))
    code = code.drop_front(kEndbr64.size());
  if (code.empty())
    return FramePointer::Unknown;
  if (code.front() != kPushRbp)
    return FramePointer::NotKept;
  code = code.drop_front(1);
  if (code.size() < kMovRbpRsp.size())
    return FramePointer::Unknown;
  return startsWith(code, kMovRbpRsp) || startsWith(code, kMovRbpRspAlt)
             ? FramePointer::Kept
             : FramePointer::NotKept;
}

} // namespace jitsym
