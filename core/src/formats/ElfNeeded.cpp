// DT_NEEDED entries through LLVM's ELF reader (ElfNeeded.h).
#include "jitsym/formats/ElfNeeded.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

namespace jitsym {
namespace {
using ELFT = llvm::object::ELF64LE;
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
  llvm::Expected<llvm::ArrayRef<ELFT::Dyn>> entries = file->dynamicEntries();
  if (!entries)
    return fail("its dynamic section: " + llvm::toString(entries.takeError()));
  uint64_t table = 0, tableSize = 0;
  std::vector<uint64_t> names;
  for (const ELFT::Dyn &entry : *entries) {
    if (entry.d_tag == llvm::ELF::DT_STRTAB)
      table = entry.getPtr();
    else if (entry.d_tag == llvm::ELF::DT_STRSZ)
      tableSize = entry.getVal();
    else if (entry.d_tag == llvm::ELF::DT_NEEDED)
      names.push_back(entry.getVal());
  }
  std::vector<std::string> needed;
  if (names.empty())
    return needed;
  if (table == 0)
    return fail("DT_NEEDED without DT_STRTAB");
  llvm::Expected<const uint8_t *> mapped = file->toMappedAddr(table);
  if (!mapped)
    return fail("its DT_STRTAB: " + llvm::toString(mapped.takeError()));
  const auto *base = reinterpret_cast<const char *>(bytes.bytes_begin());
  const size_t start = static_cast<size_t>(reinterpret_cast<const char *>(*mapped) - base);
  if (start > bytes.size())
    return fail("its DT_STRTAB lies outside the file");
  // The table as the file holds it: DT_STRSZ bytes, cut at the file's end.
  const llvm::StringRef strings = bytes.substr(start, tableSize ? tableSize : bytes.size() - start);
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
