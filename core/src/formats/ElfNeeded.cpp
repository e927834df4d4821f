// DT_NEEDED entries from a program's dynamic segment (ElfNeeded.h). LLVM's
// ELFFile checks the file and program headers; the dynamic segment and its
// string table are read here with bounds checks (ELFFile::dynamicEntries
// read past the end of a crafted file: the corefile fuzz target).
#include "jitsym/formats/ElfNeeded.h"

#include <cstring>
#include <optional>

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

namespace jitsym {
namespace {

using ELFT = llvm::object::ELF64LE;

// The file offset of virtual address `address`, if a PT_LOAD holds it in
// the file's bytes.
std::optional<uint64_t> fileOffsetOf(llvm::ArrayRef<ELFT::Phdr> headers, uint64_t address) {
  for (const ELFT::Phdr &header : headers) {
    if (header.p_type != llvm::ELF::PT_LOAD || address < header.p_vaddr)
      continue;
    const uint64_t into = address - header.p_vaddr;
    if (into < header.p_filesz && header.p_offset <= UINT64_MAX - into)
      return header.p_offset + into;
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<std::vector<std::string>> parseNeededLibraries(llvm::StringRef bytes,
                                                              llvm::StringRef fileName) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError(std::errc::invalid_argument, "%s: %s", fileName.str().c_str(),
                                   what.str().c_str());
  };
  if (bytes.size() < llvm::ELF::EI_NIDENT || !bytes.starts_with("\x7f" "ELF") ||
      bytes[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      bytes[llvm::ELF::EI_DATA] != llvm::ELF::ELFDATA2LSB)
    return fail("not a 64-bit little-endian ELF file");
  llvm::Expected<llvm::object::ELFFile<ELFT>> file = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!file)
    return fail(llvm::toString(file.takeError()));
  llvm::Expected<llvm::ArrayRef<ELFT::Phdr>> headers = file->program_headers();
  if (!headers)
    return fail(llvm::toString(headers.takeError()));
  std::vector<std::string> needed;
  const ELFT::Phdr *dynamic = nullptr;
  for (const ELFT::Phdr &header : *headers)
    if (header.p_type == llvm::ELF::PT_DYNAMIC)
      dynamic = &header;
  if (!dynamic)
    return needed; // a static program
  if (dynamic->p_offset > bytes.size() || dynamic->p_filesz > bytes.size() - dynamic->p_offset)
    return fail("its dynamic segment lies outside the file");

  // The entries, each read by copy (the segment need not be aligned in a
  // damaged file), up to DT_NULL or the segment's end.
  uint64_t table = 0, tableSize = 0;
  std::vector<uint64_t> names;
  const char *entries = bytes.data() + dynamic->p_offset;
  for (uint64_t at = 0; at + sizeof(ELFT::Dyn) <= dynamic->p_filesz; at += sizeof(ELFT::Dyn)) {
    ELFT::Dyn entry;
    std::memcpy(&entry, entries + at, sizeof entry);
    const int64_t tag = entry.d_tag;
    if (tag == llvm::ELF::DT_NULL)
      break;
    if (tag == llvm::ELF::DT_STRTAB)
      table = entry.d_un.d_ptr;
    else if (tag == llvm::ELF::DT_STRSZ)
      tableSize = entry.d_un.d_val;
    else if (tag == llvm::ELF::DT_NEEDED)
      names.push_back(entry.d_un.d_val);
  }
  if (names.empty())
    return needed;
  const std::optional<uint64_t> start = fileOffsetOf(*headers, table);
  if (!start || *start >= bytes.size())
    return fail("its DT_STRTAB is not in the file");
  // The table as the file holds it: DT_STRSZ bytes, cut at the file's end.
  const llvm::StringRef strings =
      bytes.substr(*start, tableSize ? tableSize : bytes.size() - *start);
  for (uint64_t offset : names) {
    if (offset >= strings.size())
      return fail("a DT_NEEDED name at " + llvm::Twine(offset) + " lies outside DT_STRTAB");
    const llvm::StringRef rest = strings.substr(offset);
    const size_t end = rest.find('\0');
    if (end == llvm::StringRef::npos)
      return fail("a DT_NEEDED name at " + llvm::Twine(offset) + " has no end");
    needed.push_back(rest.take_front(end).str());
  }
  return needed;
}

} // namespace jitsym
