// libFuzzer target: the memory map of an ELF core file, and (the same ELF
// headers read another way) a program's DT_NEEDED names (ElfNeeded.h).
//
// Input: the bytes of a core file (or any bytes). Checked invariants:
//  - the parser never reads outside the bytes it is given (ASan);
//  - an error names the file; a parse is of an x86_64 or aarch64 core;
//  - every mapping has start < end, mappings are sorted by start, one with
//    inode 0 (no NT_FILE entry covers it) has no path and offset 0;
//  - bytesNeeded and fileSize agree with truncated(); every missing range is
//    non-empty, inside a mapping, and there are none in a core that is whole;
//  - a whole core cut by one byte either fails (the byte was a header's or a
//    note's) or gives the same mappings: cut PT_LOAD data is only missing;
//  - DT_NEEDED: an error names the file; names hold no NUL and fit the input.
#include "jitsym/formats/CoreFile.h"
#include "jitsym/formats/ElfNeeded.h"

#include "FuzzCheck.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace jitsym;

namespace {

bool insideAMapping(const AddressRange &range, const std::vector<Mapping> &mappings) {
  for (const Mapping &m : mappings)
    if (m.start <= range.start && range.end <= m.end)
      return true;
  return false;
}

void checkInfo(const CoreFileInfo &info, size_t size) {
  CHECK(info.architecture == "x86_64" || info.architecture == "aarch64");
  CHECK(info.fileSize == size);
  CHECK(info.truncated() == (info.bytesNeeded > info.fileSize));
  for (size_t i = 0; i < info.mappings.size(); ++i) {
    const Mapping &m = info.mappings[i];
    CHECK(m.start < m.end);
    if (i > 0)
      CHECK(info.mappings[i - 1].start <= m.start);
    CHECK(!m.shared);
    // inode 1: an NT_FILE entry covers the mapping (its path may be empty).
    CHECK(m.inode <= 1);
    if (m.inode == 0)
      CHECK(m.path.empty() && m.offset == 0);
    else
      CHECK(info.hasFileNote);
    // The paths are copies: no NUL inside, at most the input's size.
    CHECK(m.path.find('\0') == std::string::npos);
    CHECK(m.path.size() <= size);
    CHECK(!(m.isFileBacked() && m.isSpecial()));
  }
  if (!info.truncated())
    CHECK(info.missing.empty());
  for (size_t i = 0; i < info.missing.size(); ++i) {
    const AddressRange &r = info.missing[i];
    CHECK(r.start < r.end);
    if (i > 0)
      CHECK(info.missing[i - 1].start <= r.start);
    CHECK(insideAMapping(r, info.mappings));
  }
  if (info.process)
    CHECK(info.process->command.size() <= 16 && info.process->arguments.size() <= 80);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // An exact-size copy, so ASan sees any read past the end.
  const std::string copy(reinterpret_cast<const char *>(data), size);
  llvm::Expected<std::vector<std::string>> needed = parseNeededLibraries(copy, "fuzz.elf");
  if (!needed) {
    CHECK(llvm::toString(needed.takeError()).rfind("fuzz.elf: ", 0) == 0);
  } else {
    for (const std::string &name : *needed)
      CHECK(name.find('\0') == std::string::npos && name.size() < size);
  }
  llvm::Expected<CoreFileInfo> info = parseCoreFile(copy, "fuzz.core");
  if (!info) {
    const std::string message = llvm::toString(info.takeError());
    CHECK(message.rfind("fuzz.core: ", 0) == 0);
    CHECK(message.size() > 11);
    return 0;
  }
  checkInfo(*info, size);

  // Cutting the file after the last byte of its notes and headers keeps the
  // mappings: what is lost is PT_LOAD data, reported as missing.
  if (info->truncated() || info->mappings.empty())
    return 0;
  const size_t cut = size - 1;
  llvm::Expected<CoreFileInfo> prefix =
      parseCoreFile(llvm::StringRef(copy).take_front(cut), "fuzz.core");
  if (!prefix) {
    llvm::consumeError(prefix.takeError());
    return 0; // the last byte belonged to the headers or notes
  }
  checkInfo(*prefix, cut);
  CHECK(prefix->bytesNeeded == info->bytesNeeded);
  CHECK(prefix->mappings.size() == info->mappings.size());
  for (size_t i = 0; i < info->mappings.size(); ++i) {
    const Mapping &a = info->mappings[i], &b = prefix->mappings[i];
    CHECK(a.start == b.start && a.end == b.end && a.path == b.path && a.offset == b.offset);
  }
  return 0;
}
