// The unwind object: .text (no bytes), .eh_frame (one CIE, an FDE per range
// of frame-pointer code) and the build-id, in an ElfImage.
#include "jitsym/objects/UnwindObject.h"

#include "LittleEndianWriter.h"
#include "jitsym/objects/ElfImage.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"

namespace jitsym {
namespace {

using namespace llvm;

constexpr uint64_t kFdeLead = 16;

using Writer = LittleEndianWriter;

std::string buildEhFrame(const Architecture &arch, const AddressRange &text,
                         const std::vector<AddressRange> &ranges) {
  std::string data;
  Writer w(data);
  cfiRecord(w, [&](size_t) {
    w.put<uint32_t>(0);          // CIE id
    w.put<uint8_t>(1);           // version
    w.bytes("zR", 3);            // augmentation, NUL included
    w.uleb(arch.codeAlignment);
    w.sleb(arch.dataAlignment);
    w.uleb(arch.returnAddressRegister);
    w.uleb(1);                   // augmentation data length
    w.put<uint8_t>(dwarf::DW_EH_PE_absptr); // FDE pointer encoding
    // The frame-pointer rule (x86-64: CFA = rbp + 16, rip at CFA-8, rbp at
    // CFA-16; aarch64: x29 and x30 alike), offsets in data-alignment units.
    w.put<uint8_t>(dwarf::DW_CFA_def_cfa);
    w.uleb(arch.framePointerRegister);
    w.uleb(arch.cfaOffset);
    w.put<uint8_t>(dwarf::DW_CFA_offset | arch.returnAddressRegister);
    w.uleb(8 / -arch.dataAlignment);
    w.put<uint8_t>(dwarf::DW_CFA_offset | arch.framePointerRegister);
    w.uleb(16 / -arch.dataAlignment);
  });
  // One FDE per range of code that keeps a frame pointer; the code between
  // has none, so LLDB analyses its instructions. An FDE that starts inside
  // the section where no symbol does becomes a synthetic symbol as large as
  // the FDE, which would shadow the JSON symbols in it: ranges start at a
  // function (framePointerRanges), and one that starts with the section
  // starts a little below it instead. Unwinding only asks which FDE covers a
  // PC, so the extra bytes change nothing else.
  for (const AddressRange &range : ranges) {
    uint64_t begin = range.start;
    if (range.start == text.start)
      begin = range.start >= kFdeLead ? range.start - kFdeLead : 0;
    cfiRecord(w, [&](size_t start) {
      w.put<uint32_t>(static_cast<uint32_t>(start + 4)); // back to the CIE at 0
      w.put<uint64_t>(begin);
      w.put<uint64_t>(range.end - begin);
      w.uleb(0); // augmentation data length
    });
  }
  w.put<uint32_t>(0); // terminator
  return data;
}

} // namespace

std::string buildUnwindObject(const Architecture &arch, const AddressRange &text,
                              const UuidBytes &buildId,
                              std::vector<LldbSymbol> symbols,
                              std::vector<ElfSection> debugSections,
                              std::optional<std::vector<AddressRange>> framePointerCode) {
  ElfImageSpec spec;
  spec.machine = arch.elfMachine;
  spec.symbols = std::move(symbols);
  spec.buildId = buildId;
  spec.loadSegment = text;
  spec.sections.push_back(codeSection(text));
  // .eh_frame is not allocated: LLDB reads it from the file, and giving it an
  // address would claim memory that belongs to someone else.
  ElfSection ehFrame;
  ehFrame.name = ".eh_frame";
  ehFrame.type = ELF::SHT_PROGBITS;
  ehFrame.bytes = buildEhFrame(arch, text, framePointerCode ? *framePointerCode
                                                         : std::vector<AddressRange>{text});
  ehFrame.alignment = 8;
  spec.sections.push_back(std::move(ehFrame));
  for (ElfSection &section : debugSections)
    spec.sections.push_back(std::move(section));
  return writeElfImage(spec);
}

} // namespace jitsym
