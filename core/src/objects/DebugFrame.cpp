// .debug_frame (DWARF 4 section 6.4.1, 64-bit addresses, DWARF32 lengths).
#include "jitsym/objects/DebugFrame.h"

#include <map>
#include <tuple>

#include "LittleEndianWriter.h"
#include "llvm/BinaryFormat/Dwarf.h"

namespace jitsym {

using namespace llvm;

std::string buildDebugFrame(const std::vector<const CallFrameInfo *> &frames) {
  std::string data;
  LittleEndianWriter w(data);
  using CieKey = std::tuple<uint64_t, int64_t, uint64_t, std::string>;
  std::map<CieKey, uint32_t> cieOffsets;
  for (const CallFrameInfo *frame : frames) {
    CieKey key{frame->codeAlignment, frame->dataAlignment, frame->returnAddressRegister,
               frame->initialInstructions};
    const auto [cie, added] = cieOffsets.try_emplace(key, uint32_t(w.size()));
    const uint32_t cieOffset = cie->second;
    if (added)
      cfiRecord(w, [&](size_t) {
        w.put<uint32_t>(dwarf::DW_CIE_ID);
        w.put<uint8_t>(3); // version: the return address register is a ULEB128
        w.put<uint8_t>(0); // no augmentation
        w.uleb(frame->codeAlignment);
        w.sleb(frame->dataAlignment);
        w.uleb(frame->returnAddressRegister);
        w.bytes(frame->initialInstructions);
      });
    cfiRecord(w, [&](size_t) {
      w.put<uint32_t>(cieOffset);
      w.put<uint64_t>(frame->start);
      w.put<uint64_t>(frame->end - frame->start);
      w.bytes(frame->instructions);
    });
  }
  return data;
}

} // namespace jitsym
