// ELF64 little-endian writer: header, program header, section contents, then the
// section header table (the note and .shstrtab are added here).
#include "jitsym/objects/ElfImage.h"

#include "LittleEndianWriter.h"
#include "llvm/BinaryFormat/ELF.h"

namespace jitsym {
namespace {

using namespace llvm;

using Writer = LittleEndianWriter;

std::string buildIdNote(const UuidBytes &buildId) {
  std::string note;
  Writer w(note);
  w.put<uint32_t>(4);
  w.put<uint32_t>(static_cast<uint32_t>(buildId.size()));
  w.put<uint32_t>(ELF::NT_GNU_BUILD_ID);
  w.bytes("GNU", 4);
  w.bytes(buildId.data(), buildId.size());
  return note;
}

// .symtab and .strtab for `symbols`, defined in header index `textIndex`;
// .strtab will be at header index `stringsIndex`.
std::pair<ElfSection, ElfSection> symbolTable(const std::vector<LldbSymbol> &symbols,
                                              uint16_t textIndex, uint32_t stringsIndex) {
  ElfSection table, strings;
  table.name = ".symtab";
  table.type = ELF::SHT_SYMTAB;
  table.alignment = 8;
  table.entrySize = sizeof(ELF::Elf64_Sym);
  table.link = stringsIndex;
  table.info = 1; // the first global symbol: all but the null one
  strings.name = ".strtab";
  strings.type = ELF::SHT_STRTAB;
  strings.bytes.assign(1, '\0');
  Writer w(table.bytes);
  table.bytes.append(sizeof(ELF::Elf64_Sym), '\0'); // the null symbol
  for (const LldbSymbol &symbol : symbols) {
    w.put<uint32_t>(static_cast<uint32_t>(strings.bytes.size()));
    // A name ends at its first NUL, as in every ELF string table.
    strings.bytes.append(symbol.name.c_str());
    strings.bytes.push_back('\0');
    w.put<uint8_t>(static_cast<uint8_t>(
        (ELF::STB_GLOBAL << 4) | (symbol.data ? ELF::STT_OBJECT : ELF::STT_FUNC)));
    w.put<uint8_t>(ELF::STV_DEFAULT);
    w.put<uint16_t>(textIndex);
    w.put<uint64_t>(symbol.address);
    w.put<uint64_t>(symbol.size);
  }
  return {std::move(table), std::move(strings)};
}

} // namespace

ElfSection codeSection(const AddressRange &text) {
  ElfSection code;
  code.name = ".text";
  code.type = ELF::SHT_NOBITS;
  code.flags = ELF::SHF_ALLOC | ELF::SHF_EXECINSTR | ELF::SHF_WRITE;
  code.address = text.start;
  code.noBitsSize = text.end - text.start;
  return code;
}

std::string writeElfImage(const ElfImageSpec &spec) {
  std::vector<ElfSection> sections = spec.sections;
  ElfSection note;
  note.name = ".note.gnu.build-id";
  note.type = ELF::SHT_NOTE;
  note.bytes = buildIdNote(spec.buildId);
  note.alignment = 4;
  sections.push_back(std::move(note));
  if (!spec.symbols.empty() && !spec.sections.empty()) {
    // Header indices count the null header: sections[i] is at i + 1.
    const uint32_t stringsIndex = static_cast<uint32_t>(sections.size()) + 2;
    auto [table, strings] = symbolTable(spec.symbols, 1, stringsIndex);
    sections.push_back(std::move(table));
    sections.push_back(std::move(strings));
  }
  std::string names(1, '\0');
  std::vector<uint32_t> nameOffsets;
  for (const ElfSection &s : sections) {
    nameOffsets.push_back(static_cast<uint32_t>(names.size()));
    names += s.name;
    names.push_back('\0');
  }
  nameOffsets.push_back(static_cast<uint32_t>(names.size()));
  names += ".shstrtab";
  names.push_back('\0');
  ElfSection strings;
  strings.name = ".shstrtab";
  strings.type = ELF::SHT_STRTAB;
  strings.bytes = std::move(names);
  sections.push_back(std::move(strings));

  std::string image;
  Writer w(image);
  const uint16_t phnum = spec.loadSegment ? 1 : 0;
  const uint16_t shnum = static_cast<uint16_t>(sections.size() + 1);

  unsigned char ident[ELF::EI_NIDENT] = {0x7f, 'E', 'L', 'F', ELF::ELFCLASS64,
                                         ELF::ELFDATA2LSB, ELF::EV_CURRENT,
                                         ELF::ELFOSABI_GNU};
  w.bytes(ident, sizeof(ident));
  w.put<uint16_t>(ELF::ET_DYN);
  w.put<uint16_t>(spec.machine);
  w.put<uint32_t>(ELF::EV_CURRENT);
  w.put<uint64_t>(0); // entry
  w.put<uint64_t>(phnum ? sizeof(ELF::Elf64_Ehdr) : 0);
  const size_t shoffAt = w.size();
  w.put<uint64_t>(0); // shoff, patched below
  w.put<uint32_t>(0); // flags
  w.put<uint16_t>(sizeof(ELF::Elf64_Ehdr));
  w.put<uint16_t>(sizeof(ELF::Elf64_Phdr));
  w.put<uint16_t>(phnum);
  w.put<uint16_t>(sizeof(ELF::Elf64_Shdr));
  w.put<uint16_t>(shnum);
  w.put<uint16_t>(shnum - 1); // .shstrtab is last

  if (spec.loadSegment) {
    // No file bytes, and writable: LLDB then reads the code from process memory
    // instead of the (empty) file for every consumer.
    const AddressRange &load = *spec.loadSegment;
    w.put<uint32_t>(ELF::PT_LOAD);
    w.put<uint32_t>(ELF::PF_R | ELF::PF_W | ELF::PF_X);
    w.put<uint64_t>(0);
    w.put<uint64_t>(load.start);
    w.put<uint64_t>(load.start);
    w.put<uint64_t>(0);
    w.put<uint64_t>(load.end - load.start);
    w.put<uint64_t>(1);
  }

  std::vector<uint64_t> offsets;
  for (const ElfSection &s : sections) {
    w.padTo(s.alignment);
    offsets.push_back(w.size());
    if (s.type != ELF::SHT_NOBITS)
      w.bytes(s.bytes);
  }
  w.padTo(8);
  w.patch64(shoffAt, w.size());

  image.append(sizeof(ELF::Elf64_Shdr), '\0'); // the null section
  for (size_t i = 0; i < sections.size(); ++i) {
    const ElfSection &s = sections[i];
    w.put<uint32_t>(nameOffsets[i]);
    w.put<uint32_t>(s.type);
    w.put<uint64_t>(s.flags);
    w.put<uint64_t>(s.address);
    w.put<uint64_t>(s.type == ELF::SHT_NOBITS ? 0 : offsets[i]);
    w.put<uint64_t>(s.type == ELF::SHT_NOBITS ? s.noBitsSize : s.bytes.size());
    w.put<uint32_t>(s.link);
    w.put<uint32_t>(s.info);
    w.put<uint64_t>(s.alignment);
    w.put<uint64_t>(s.entrySize);
  }
  return image;
}

} // namespace jitsym
