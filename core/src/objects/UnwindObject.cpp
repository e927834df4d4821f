// The unwind object: .text (no bytes), .eh_frame (one CIE, an FDE per range
// of frame-pointer code and of code on a runtime's frame) and the build-id,
// in an ElfImage.
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

// DW_CFA_advance_loc by `bytes` of code (a multiple of the code alignment).
void advance(Writer &w, const Architecture &arch, uint64_t bytes) {
  const uint64_t units = bytes / arch.codeAlignment;
  if (units == 0)
    return;
  if (units < 0x40) {
    w.put<uint8_t>(dwarf::DW_CFA_advance_loc | units);
  } else {
    w.put<uint8_t>(dwarf::DW_CFA_advance_loc2);
    w.put<uint16_t>(static_cast<uint16_t>(units));
  }
}

// The rows of a prologue, from `lead` bytes before the function: at entry
// the frame is the caller's (CFA = sp, the return address still in its
// register, the frame pointer the caller's); after the frame record's store
// CFA = sp + its size, with the record at the new stack top; after the frame
// pointer's move CFA = frame pointer + that size. (Only architectures whose
// call leaves the return address in a register have prologues described:
// Architecture::fdeHoldsAtEntry.)
void prologueRows(Writer &w, const Architecture &arch, uint64_t lead, const Prologue &prologue) {
  const int factor = -arch.dataAlignment;
  w.put<uint8_t>(dwarf::DW_CFA_def_cfa);
  w.uleb(arch.stackPointerRegister);
  w.uleb(0);
  w.put<uint8_t>(dwarf::DW_CFA_same_value);
  w.uleb(arch.framePointerRegister);
  w.put<uint8_t>(dwarf::DW_CFA_same_value);
  w.uleb(arch.returnAddressRegister);
  advance(w, arch, lead + prologue.recordStored);
  w.put<uint8_t>(dwarf::DW_CFA_def_cfa_offset);
  w.uleb(prologue.frameSize);
  w.put<uint8_t>(dwarf::DW_CFA_offset | arch.framePointerRegister);
  w.uleb(prologue.frameSize / factor);
  w.put<uint8_t>(dwarf::DW_CFA_offset | arch.returnAddressRegister);
  w.uleb((prologue.frameSize - 8) / factor);
  advance(w, arch, prologue.framePointerSet - prologue.recordStored);
  w.put<uint8_t>(dwarf::DW_CFA_def_cfa_register);
  w.uleb(arch.framePointerRegister);
}

std::string buildEhFrame(const Architecture &arch, const AddressRange &text,
                         const FramePointerCode &code) {
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
  // PC, so the extra bytes change nothing else. A range that starts with a
  // prologue (FramePointer.h) describes it first.
  auto prologue = code.prologues.begin();
  for (const AddressRange &range : code.ranges) {
    uint64_t begin = range.start;
    if (range.start == text.start)
      begin = range.start >= kFdeLead ? range.start - kFdeLead : 0;
    while (prologue != code.prologues.end() && prologue->first < range.start)
      ++prologue;
    const bool described = prologue != code.prologues.end() && prologue->first == range.start;
    cfiRecord(w, [&](size_t start) {
      w.put<uint32_t>(static_cast<uint32_t>(start + 4)); // back to the CIE at 0
      w.put<uint64_t>(begin);
      w.put<uint64_t>(range.end - begin);
      w.uleb(0); // augmentation data length
      if (described)
        prologueRows(w, arch, range.start - begin, prologue->second);
    });
  }
  // Code that runs on a runtime's frame (RuntimeFrame.h): its CFA and saved
  // registers, over what the CIE says of the frame-pointer rule.
  if (code.runtimeFrame)
    for (const AddressRange &range : code.runtimeRanges) {
      const RuntimeFrame &frame = *code.runtimeFrame;
      cfiRecord(w, [&](size_t start) {
        w.put<uint32_t>(static_cast<uint32_t>(start + 4)); // back to the CIE at 0
        w.put<uint64_t>(range.start);
        w.put<uint64_t>(range.end - range.start);
        w.uleb(0); // augmentation data length
        w.put<uint8_t>(dwarf::DW_CFA_def_cfa);
        w.uleb(frame.cfaRegister);
        w.uleb(static_cast<uint64_t>(frame.cfaOffset));
        bool framePointerSaved = false;
        for (const auto &[reg, offset] : frame.savedRegisters) {
          w.put<uint8_t>(dwarf::DW_CFA_offset_extended_sf);
          w.uleb(reg);
          w.sleb(offset / arch.dataAlignment);
          framePointerSaved = framePointerSaved || reg == arch.framePointerRegister;
        }
        if (!framePointerSaved) {
          w.put<uint8_t>(dwarf::DW_CFA_same_value);
          w.uleb(arch.framePointerRegister);
        }
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
                              std::optional<FramePointerCode> framePointerCode) {
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
  ehFrame.bytes =
      buildEhFrame(arch, text, framePointerCode ? *framePointerCode : FramePointerCode{{text}, {}, {}, {}});
  ehFrame.alignment = 8;
  spec.sections.push_back(std::move(ehFrame));
  for (ElfSection &section : debugSections)
    spec.sections.push_back(std::move(section));
  return writeElfImage(spec);
}

} // namespace jitsym
