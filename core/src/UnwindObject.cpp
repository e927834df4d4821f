// ELF64 little-endian writer for the unwind object: .text (no bytes), .eh_frame
// (one CIE, one FDE for the whole window), .note.gnu.build-id, .shstrtab.
#include "jitsym/UnwindObject.h"

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/raw_ostream.h"

namespace jitsym {
namespace {

using namespace llvm;

constexpr uint8_t kRegRbp = 6;  // DWARF register numbers, x86-64 psABI
constexpr uint8_t kRegRip = 16; // return address column
constexpr uint64_t kFdeLead = 16;

class Writer {
public:
  explicit Writer(std::string &out) : out_(out) {}
  template <typename T> void put(T value) {
    char bytes[sizeof(T)];
    support::endian::write<T, endianness::little>(bytes, value);
    out_.append(bytes, sizeof(T));
  }
  void bytes(const void *data, size_t size) {
    out_.append(static_cast<const char *>(data), size);
  }
  void uleb(uint64_t v) {
    raw_string_ostream os(out_);
    encodeULEB128(v, os);
  }
  void sleb(int64_t v) {
    raw_string_ostream os(out_);
    encodeSLEB128(v, os);
  }
  void padTo(size_t alignment, char fill = 0) {
    while (out_.size() % alignment)
      out_.push_back(fill);
  }
  size_t size() const { return out_.size(); }
  void patch32(size_t at, uint32_t value) {
    support::endian::write<uint32_t, endianness::little>(&out_[at], value);
  }

private:
  std::string &out_;
};

// Appends a CFI record (CIE or FDE) whose length field is patched afterwards and
// whose size is padded with DW_CFA_nop to the address size.
template <typename Body> void cfiRecord(Writer &w, Body body) {
  size_t start = w.size();
  w.put<uint32_t>(0);
  body(start);
  while ((w.size() - start) % 8)
    w.put<uint8_t>(dwarf::DW_CFA_nop);
  w.patch32(start, static_cast<uint32_t>(w.size() - start - 4));
}

std::string buildEhFrame(const AddressRange &text) {
  std::string data;
  Writer w(data);
  cfiRecord(w, [&](size_t) {
    w.put<uint32_t>(0);          // CIE id
    w.put<uint8_t>(1);           // version
    w.bytes("zR", 3);            // augmentation, NUL included
    w.uleb(1);                   // code alignment
    w.sleb(-8);                  // data alignment
    w.uleb(kRegRip);             // return address register
    w.uleb(1);                   // augmentation data length
    w.put<uint8_t>(dwarf::DW_EH_PE_absptr); // FDE pointer encoding
    // The frame-pointer rule: CFA = rbp + 16, rip at CFA-8, rbp at CFA-16.
    w.put<uint8_t>(dwarf::DW_CFA_def_cfa);
    w.uleb(kRegRbp);
    w.uleb(16);
    w.put<uint8_t>(dwarf::DW_CFA_offset | kRegRip);
    w.uleb(1);
    w.put<uint8_t>(dwarf::DW_CFA_offset | kRegRbp);
    w.uleb(2);
  });
  // The FDE starts a little below the code section. LLDB turns an FDE whose start
  // lies in a section and has no symbol into a synthetic symbol as large as the
  // FDE, and that one would shadow every JSON symbol in the window. Unwinding only
  // asks which FDE covers a PC, so the extra bytes change nothing else.
  const uint64_t begin = text.start >= kFdeLead ? text.start - kFdeLead : 0;
  cfiRecord(w, [&](size_t start) {
    w.put<uint32_t>(static_cast<uint32_t>(start + 4)); // back to the CIE at 0
    w.put<uint64_t>(begin);
    w.put<uint64_t>(text.end - begin);
    w.uleb(0); // augmentation data length
  });
  w.put<uint32_t>(0); // terminator
  return data;
}

} // namespace

std::string buildUnwindObject(const AddressRange &text, const UuidBytes &buildId) {
  const std::string ehFrame = buildEhFrame(text);
  const char shstrtab[] = "\0.text\0.eh_frame\0.note.gnu.build-id\0.shstrtab";
  enum : uint32_t { kNameText = 1, kNameEhFrame = 7, kNameNote = 17, kNameShstrtab = 36 };

  std::string image;
  Writer w(image);
  const uint64_t phoff = sizeof(ELF::Elf64_Ehdr);
  const uint64_t noteOffset = phoff + sizeof(ELF::Elf64_Phdr);
  const uint64_t noteSize = 12 + 4 + buildId.size();
  const uint64_t ehFrameOffset = noteOffset + noteSize;
  const uint64_t shstrtabOffset = ehFrameOffset + ehFrame.size();
  const uint64_t shoff = (shstrtabOffset + sizeof(shstrtab) + 7) & ~uint64_t(7);
  const uint16_t shnum = 5;

  // ELF header.
  unsigned char ident[ELF::EI_NIDENT] = {0x7f, 'E', 'L', 'F', ELF::ELFCLASS64,
                                         ELF::ELFDATA2LSB, ELF::EV_CURRENT,
                                         ELF::ELFOSABI_GNU};
  w.bytes(ident, sizeof(ident));
  w.put<uint16_t>(ELF::ET_DYN);
  w.put<uint16_t>(ELF::EM_X86_64);
  w.put<uint32_t>(ELF::EV_CURRENT);
  w.put<uint64_t>(0);                     // entry
  w.put<uint64_t>(phoff);
  w.put<uint64_t>(shoff);
  w.put<uint32_t>(0);                     // flags
  w.put<uint16_t>(sizeof(ELF::Elf64_Ehdr));
  w.put<uint16_t>(sizeof(ELF::Elf64_Phdr));
  w.put<uint16_t>(1);                     // phnum
  w.put<uint16_t>(sizeof(ELF::Elf64_Shdr));
  w.put<uint16_t>(shnum);
  w.put<uint16_t>(shnum - 1);             // shstrndx

  // One PT_LOAD for the window, with no file bytes. Writable, so LLDB reads the
  // code from process memory instead of the (empty) file for every consumer.
  w.put<uint32_t>(ELF::PT_LOAD);
  w.put<uint32_t>(ELF::PF_R | ELF::PF_W | ELF::PF_X);
  w.put<uint64_t>(0);                     // offset
  w.put<uint64_t>(text.start);            // vaddr
  w.put<uint64_t>(text.start);            // paddr
  w.put<uint64_t>(0);                     // filesz
  w.put<uint64_t>(text.end - text.start); // memsz
  w.put<uint64_t>(1);                     // align

  // .note.gnu.build-id: the UUID that the JSON symbol files name.
  w.put<uint32_t>(4);
  w.put<uint32_t>(static_cast<uint32_t>(buildId.size()));
  w.put<uint32_t>(ELF::NT_GNU_BUILD_ID);
  w.bytes("GNU", 4);
  w.bytes(buildId.data(), buildId.size());

  w.bytes(ehFrame.data(), ehFrame.size());
  w.bytes(shstrtab, sizeof(shstrtab));
  w.padTo(8);

  auto section = [&](uint32_t name, uint32_t type, uint64_t flags, uint64_t addr,
                     uint64_t offset, uint64_t size, uint64_t align) {
    w.put<uint32_t>(name);
    w.put<uint32_t>(type);
    w.put<uint64_t>(flags);
    w.put<uint64_t>(addr);
    w.put<uint64_t>(offset);
    w.put<uint64_t>(size);
    w.put<uint32_t>(0); // link
    w.put<uint32_t>(0); // info
    w.put<uint64_t>(align);
    w.put<uint64_t>(0); // entsize
  };
  section(0, ELF::SHT_NULL, 0, 0, 0, 0, 0);
  section(kNameText, ELF::SHT_NOBITS, ELF::SHF_ALLOC | ELF::SHF_EXECINSTR | ELF::SHF_WRITE,
          text.start, 0, text.end - text.start, 1);
  // .eh_frame is not allocated: LLDB reads it from the file, and giving it an
  // address would claim memory that belongs to someone else.
  section(kNameEhFrame, ELF::SHT_PROGBITS, 0, 0, ehFrameOffset, ehFrame.size(), 8);
  section(kNameNote, ELF::SHT_NOTE, 0, 0, noteOffset, noteSize, 4);
  section(kNameShstrtab, ELF::SHT_STRTAB, 0, 0, shstrtabOffset, sizeof(shstrtab), 1);
  return image;
}

} // namespace jitsym
