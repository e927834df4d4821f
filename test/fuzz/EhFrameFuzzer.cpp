// libFuzzer target: .eh_frame parsing (CODE_UNWINDING_INFO) and the
// .debug_frame jitsym writes from it.
//
// Input: 8 bytes of the address the .eh_frame lies at, then the .eh_frame.
// Checked invariants:
//  - the parser never reads outside the bytes it is given (ASan);
//  - every frame it returns covers a range that does not wrap;
//  - LLVM's own .debug_frame parser reads what jitsym writes from those frames
//    back as the same FDEs: same code ranges, same CIE parameters, and CFA
//    programs LLVM can decode.
#include "jitsym/objects/DebugFrame.h"
#include "jitsym/formats/EhFrameParser.h"

#include "FuzzCheck.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"
#include "llvm/Support/Casting.h"

using namespace jitsym;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 8)
    return 0;
  uint64_t address;
  std::memcpy(&address, data, 8);
  const std::string bytes(reinterpret_cast<const char *>(data) + 8, size - 8);
  llvm::Expected<std::vector<CallFrameInfo>> frames = parseEhFrame(bytes, address);
  if (!frames) {
    CHECK(!llvm::toString(frames.takeError()).empty());
    return 0;
  }
  std::vector<const CallFrameInfo *> pointers;
  for (const CallFrameInfo &frame : *frames) {
    CHECK(frame.start <= frame.end);
    pointers.push_back(&frame);
  }
  const std::string section = buildDebugFrame(pointers);
  llvm::DWARFDebugFrame reader(llvm::Triple::x86_64);
  llvm::Error err =
      reader.parse(llvm::DWARFDataExtractor(section, /*IsLittleEndian=*/true, /*AddressSize=*/8));
  CHECK(!err);
  size_t index = 0;
  for (const llvm::dwarf::FrameEntry &entry : reader.entries()) {
    const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry);
    if (!fde)
      continue;
    CHECK(index < pointers.size());
    const CallFrameInfo &frame = *pointers[index++];
    CHECK(fde->getInitialLocation() == frame.start);
    CHECK(fde->getAddressRange() == frame.end - frame.start);
    const llvm::dwarf::CIE *cie = fde->getLinkedCIE();
    CHECK(cie != nullptr);
    CHECK(cie->getCodeAlignmentFactor() == frame.codeAlignment);
    CHECK(cie->getDataAlignmentFactor() == frame.dataAlignment);
    CHECK(cie->getReturnAddressRegister() == frame.returnAddressRegister);
  }
  CHECK(index == pointers.size());
  return 0;
}
