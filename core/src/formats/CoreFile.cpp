// ELF core files: LLVM's ELF reader walks the program headers and notes; the
// two descriptors jitsym needs (NT_FILE, NT_PRPSINFO) are read with
// bounds-checked DataExtractor reads.
#include "jitsym/formats/CoreFile.h"

#include <algorithm>

#include "jitsym/arch/Architecture.h"
#include "jitsym/base/HexText.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/DataExtractor.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

namespace jitsym {
namespace {

// e_phnum's "more than fit here" value (gABI); LLVM names it from 20 on.
constexpr uint16_t kPnXnum = 0xffff;

using ELFT = llvm::object::ELF64LE;
using ElfFile = llvm::object::ELFFile<ELFT>;
using Phdr = ELFT::Phdr;

constexpr size_t kNoteHeaderSize = 12; // n_namesz, n_descsz, n_type
constexpr size_t kFileNoteFixed = 16;  // count, page_size
constexpr size_t kFileEntrySize = 24;  // start, end, file_offset_in_pages
constexpr size_t kPrpsinfoSize = 136;  // struct elf_prpsinfo, 64-bit Linux
constexpr size_t kPrpsinfoUid = 16;    // u32 on x86_64 and arm64 alike
constexpr size_t kPrpsinfoPid = 24;
constexpr size_t kPrpsinfoFname = 40;
constexpr size_t kPrpsinfoFnameSize = 16;
constexpr size_t kPrpsinfoPsargs = 56;
constexpr size_t kPrpsinfoPsargsSize = 80;

llvm::Error failure(const std::string &path, const std::string &what) {
  return llvm::createStringError(std::errc::invalid_argument, "%s: %s", path.c_str(), what.c_str());
}

struct FileEntry {
  uint64_t start = 0, end = 0;
  uint64_t offset = 0; // in bytes
  std::string path;
};

std::string describeType(uint16_t type) {
  switch (type) {
  case llvm::ELF::ET_REL:
    return "an ELF relocatable object";
  case llvm::ELF::ET_EXEC:
    return "an ELF executable";
  case llvm::ELF::ET_DYN:
    return "an ELF shared object or position-independent executable";
  default:
    return "an ELF file";
  }
}

// The ELF identification and type, checked before LLVM reads the rest as a
// 64-bit little-endian header.
llvm::Error checkIdentification(llvm::StringRef bytes, const std::string &path) {
  using namespace llvm::ELF;
  if (!bytes.starts_with(ElfMagic))
    return failure(path, "not an ELF file");
  constexpr size_t kTypeEnd = EI_NIDENT + 2;
  if (bytes.size() < kTypeEnd)
    return failure(path, "truncated inside its ELF header (the file has " +
                             std::to_string(bytes.size()) + " bytes)");
  const uint8_t elfClass = bytes[EI_CLASS], data = bytes[EI_DATA];
  if (data != ELFDATA2LSB && data != ELFDATA2MSB)
    return failure(path, "unknown ELF data encoding " + std::to_string(data));
  const llvm::endianness order =
      data == ELFDATA2LSB ? llvm::endianness::little : llvm::endianness::big;
  const uint16_t type = llvm::support::endian::read<uint16_t>(bytes.data() + EI_NIDENT, order);
  if (type != ET_CORE)
    return failure(path,
                   describeType(type) + ", not a core file (e_type " + std::to_string(type) + ")");
  const char *const supported = "; jitsym reads 64-bit little-endian cores";
  if (elfClass == ELFCLASS32)
    return failure(path, std::string("a 32-bit core") + supported);
  if (elfClass != ELFCLASS64)
    return failure(path, "a core of unknown ELF class " + std::to_string(elfClass) + supported);
  if (data != ELFDATA2LSB)
    return failure(path, std::string("a big-endian core") + supported);
  if (bytes.size() < sizeof(ELFT::Ehdr))
    return failure(path, "truncated inside its ELF header (the file has " +
                             std::to_string(bytes.size()) + " bytes, the header " +
                             std::to_string(sizeof(ELFT::Ehdr)) + ")");
  return llvm::Error::success();
}

llvm::Expected<std::string> architectureOf(const ELFT::Ehdr &header, const std::string &path) {
  if (const Architecture *arch = architectureOfElfMachine(header.e_machine))
    return std::string(arch->name);
  return failure(path, "a core for " +
                           llvm::ELF::convertEMachineToArchName(header.e_machine).str() +
                           " (e_machine " + std::to_string(header.e_machine) +
                           "); jitsym reads x86_64 and aarch64 cores");
}

// The program headers, with LLVM's checks; a file cut inside them says so.
llvm::Expected<ElfFile::Elf_Phdr_Range> programHeaders(const ElfFile &elf, uint64_t fileSize,
                                                       const std::string &path) {
  llvm::Expected<ElfFile::Elf_Phdr_Range> headers = elf.program_headers();
  if (headers)
    return headers;
  const ELFT::Ehdr &h = elf.getHeader();
  const uint64_t count = h.e_phnum; // below PN_XNUM, so the product cannot overflow
  if (count != kPnXnum && h.e_phentsize == sizeof(Phdr) &&
      (h.e_phoff > fileSize || count * sizeof(Phdr) > fileSize - h.e_phoff)) {
    llvm::consumeError(headers.takeError());
    return failure(path, "truncated before the end of its program headers (they end at byte " +
                             std::to_string(h.e_phoff + count * sizeof(Phdr)) + ", the file has " +
                             std::to_string(fileSize) + " bytes)");
  }
  return failure(path, "program headers: " + llvm::toString(headers.takeError()));
}

// NT_FILE: count, page_size, count {start, end, file_offset_in_pages}, then
// count NUL-terminated paths. False, with `problem` set, when malformed.
bool parseFileNote(llvm::StringRef desc, std::vector<FileEntry> &entries, std::string &problem) {
  if (desc.size() < kFileNoteFixed) {
    problem = "descriptor of " + std::to_string(desc.size()) +
              " bytes is too small for its count and page size";
    return false;
  }
  llvm::DataExtractor data(desc, /*IsLittleEndian=*/true, /*AddressSize=*/8);
  uint64_t at = 0;
  const uint64_t count = data.getU64(&at);
  const uint64_t pageSize = data.getU64(&at);
  // Each entry takes its fixed part and at least the NUL of its path.
  if (count > (desc.size() - kFileNoteFixed) / (kFileEntrySize + 1)) {
    problem = "count " + std::to_string(count) + " does not fit its " +
              std::to_string(desc.size()) + "-byte descriptor";
    return false;
  }
  if (pageSize == 0 && count > 0) {
    problem = "page size 0";
    return false;
  }
  const size_t first = entries.size();
  for (uint64_t i = 0; i < count; ++i) {
    FileEntry entry;
    entry.start = data.getU64(&at);
    entry.end = data.getU64(&at);
    const uint64_t pages = data.getU64(&at);
    if (entry.end < entry.start) {
      problem = "entry " + std::to_string(i) + " ends at " + hexText(entry.end) +
                ", before its start " + hexText(entry.start);
      return false;
    }
    // The offset of the entry's last byte must be representable too.
    bool overflow = false;
    entry.offset = llvm::SaturatingMultiply(pages, pageSize, &overflow);
    llvm::SaturatingAdd(entry.offset, entry.end - entry.start, &overflow);
    if (overflow) {
      problem = "entry " + std::to_string(i) + ": file offset of " + std::to_string(pages) +
                " pages of " + std::to_string(pageSize) + " bytes overflows";
      return false;
    }
    entries.push_back(std::move(entry));
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t before = at;
    if (at >= desc.size()) {
      problem = "entry " + std::to_string(i) + " has no path (the descriptor ends at byte " +
                std::to_string(desc.size()) + ")";
      return false;
    }
    llvm::StringRef text = data.getCStrRef(&at);
    if (at == before) {
      problem = "the path of entry " + std::to_string(i) + " (descriptor byte " +
                std::to_string(before) + ") is not NUL-terminated";
      return false;
    }
    entries[first + i].path = text.str();
  }
  return true;
}

// A fixed-size char array: up to its first NUL.
std::string fixedString(llvm::StringRef bytes) {
  return bytes.take_until([](char c) { return c == '\0'; }).str();
}

// NT_PRPSINFO, struct elf_prpsinfo of 64-bit Linux (the same on x86_64 and arm64).
bool parsePrpsinfo(llvm::StringRef desc, CoreProcess &process, std::string &problem) {
  if (desc.size() != kPrpsinfoSize) {
    problem = "descriptor of " + std::to_string(desc.size()) + " bytes, not the " +
              std::to_string(kPrpsinfoSize) + " of a 64-bit prpsinfo";
    return false;
  }
  llvm::DataExtractor data(desc, /*IsLittleEndian=*/true, /*AddressSize=*/8);
  uint64_t at = kPrpsinfoUid;
  process.uid = data.getU32(&at);
  at = kPrpsinfoPid;
  process.pid = data.getU32(&at);
  process.command = fixedString(desc.substr(kPrpsinfoFname, kPrpsinfoFnameSize));
  // The kernel turns the NUL after each argument, the last one included, into a blank.
  process.arguments =
      llvm::StringRef(fixedString(desc.substr(kPrpsinfoPsargs, kPrpsinfoPsargsSize)))
          .rtrim(' ')
          .str();
  return true;
}

// Reads the notes of one PT_NOTE segment, already known to lie inside the file.
llvm::Error readNotes(const ElfFile &elf, const Phdr &segment, size_t index,
                      const std::string &path, CoreFileInfo &info,
                      std::vector<FileEntry> &fileEntries) {
  // The alignment LLVM's note iterator steps by (0 in kernel cores).
  const size_t align = std::max<uint64_t>(segment.p_align, 4);
  uint64_t at = segment.p_offset; // the current note's byte offset in the file
  std::string problem, noteName;
  llvm::Error err = llvm::Error::success();
  for (const ElfFile::Elf_Note &note : elf.notes(segment, err)) {
    const llvm::StringRef name = note.getName();
    const llvm::ArrayRef<uint8_t> descBytes = note.getDesc(align);
    const llvm::StringRef desc = llvm::toStringRef(descBytes);
    if (name == "CORE" && note.getType() == llvm::ELF::NT_FILE) {
      noteName = "NT_FILE";
      info.hasFileNote = true;
      parseFileNote(desc, fileEntries, problem);
    } else if (name == "CORE" && note.getType() == llvm::ELF::NT_PRPSINFO && !info.process) {
      noteName = "NT_PRPSINFO";
      CoreProcess process;
      if (parsePrpsinfo(desc, process, problem))
        info.process = std::move(process);
    }
    if (!problem.empty())
      break;
    const size_t nameSize = name.data() ? name.size() + 1 : 0;
    at += llvm::alignTo(kNoteHeaderSize + nameSize, align) + llvm::alignTo(desc.size(), align);
  }
  if (err)
    return failure(path, "program header " + std::to_string(index) + ": note at byte " +
                             std::to_string(at) + ": " + llvm::toString(std::move(err)));
  if (!problem.empty())
    return failure(path, noteName + " note at byte " + std::to_string(at) + ": " + problem);
  return llvm::Error::success();
}

// The NT_FILE entry that covers [start, end): among the entries starting at or
// before `start`, the one reaching furthest (kernel entries are disjoint, so
// it is the last of them).
class FileEntryIndex {
public:
  explicit FileEntryIndex(std::vector<FileEntry> entries) : entries_(std::move(entries)) {
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const FileEntry &a, const FileEntry &b) { return a.start < b.start; });
    reach_.resize(entries_.size());
    for (size_t i = 0; i < entries_.size(); ++i)
      reach_[i] = i > 0 && entries_[reach_[i - 1]].end >= entries_[i].end ? reach_[i - 1] : i;
  }

  const FileEntry *covering(uint64_t start, uint64_t end) const {
    auto after = std::upper_bound(entries_.begin(), entries_.end(), start,
                                  [](uint64_t s, const FileEntry &e) { return s < e.start; });
    if (after == entries_.begin())
      return nullptr;
    const FileEntry &best = entries_[reach_[after - entries_.begin() - 1]];
    return best.end >= end ? &best : nullptr;
  }

private:
  std::vector<FileEntry> entries_; // sorted by start
  std::vector<size_t> reach_;      // [i]: the entry of 0..i with the largest end
};

} // namespace

llvm::Expected<CoreFileInfo> parseCoreFile(llvm::StringRef bytes, const std::string &path) {
  if (llvm::Error err = checkIdentification(bytes, path))
    return err;
  llvm::Expected<ElfFile> elf = ElfFile::create(bytes);
  if (!elf)
    return failure(path, llvm::toString(elf.takeError()));
  CoreFileInfo info;
  info.fileSize = bytes.size();
  llvm::Expected<std::string> architecture = architectureOf(elf->getHeader(), path);
  if (!architecture)
    return architecture.takeError();
  info.architecture = std::move(*architecture);
  llvm::Expected<ElfFile::Elf_Phdr_Range> headers = programHeaders(*elf, bytes.size(), path);
  if (!headers)
    return headers.takeError();

  std::vector<FileEntry> fileEntries;
  std::vector<const Phdr *> loads;
  for (size_t i = 0; i < headers->size(); ++i) {
    const Phdr &ph = (*headers)[i];
    auto where = [i] { return "program header " + std::to_string(i); };
    bool overflow = false;
    const uint64_t fileEnd = llvm::SaturatingAdd<uint64_t>(ph.p_offset, ph.p_filesz, &overflow);
    if (overflow)
      return failure(path, where() + ": file bytes at offset " + hexText(ph.p_offset) +
                               " of size " + hexText(ph.p_filesz) + " wrap past the end of a file");
    info.bytesNeeded = std::max(info.bytesNeeded, fileEnd);
    if (ph.p_type == llvm::ELF::PT_NOTE) {
      if (fileEnd > bytes.size())
        return failure(path, "truncated before its notes (the note segment ends at byte " +
                                 std::to_string(fileEnd) + ", the file has " +
                                 std::to_string(bytes.size()) + " bytes)");
      if (llvm::Error err = readNotes(*elf, ph, i, path, info, fileEntries))
        return err;
    } else if (ph.p_type == llvm::ELF::PT_LOAD && ph.p_memsz > 0) {
      llvm::SaturatingAdd<uint64_t>(ph.p_vaddr, ph.p_memsz, &overflow);
      if (overflow)
        return failure(path, where() + ": PT_LOAD at " + hexText(ph.p_vaddr) + " of " +
                                 hexText(ph.p_memsz) + " bytes wraps past the end of memory");
      loads.push_back(&ph);
    }
  }

  std::stable_sort(loads.begin(), loads.end(),
                   [](const Phdr *a, const Phdr *b) { return a->p_vaddr < b->p_vaddr; });
  const FileEntryIndex files(std::move(fileEntries));
  for (const Phdr *ph : loads) {
    Mapping m;
    m.start = ph->p_vaddr;
    m.end = ph->p_vaddr + ph->p_memsz;
    m.read = ph->p_flags & llvm::ELF::PF_R;
    m.write = ph->p_flags & llvm::ELF::PF_W;
    m.execute = ph->p_flags & llvm::ELF::PF_X;
    if (const FileEntry *file = files.covering(m.start, m.end)) {
      m.path = file->path;
      m.offset = file->offset + (m.start - file->start);
      m.inode = 1;
    }
    info.mappings.push_back(std::move(m));

    // Memory whose bytes lie past the end of a cut file; the rest of the
    // segment's file bytes can still be read.
    const uint64_t inFile = std::min(ph->p_filesz, ph->p_memsz);
    const uint64_t present =
        ph->p_offset < bytes.size() ? std::min<uint64_t>(bytes.size() - ph->p_offset, inFile) : 0;
    if (present < inFile)
      info.missing.push_back({ph->p_vaddr + present, ph->p_vaddr + inFile});
  }
  // In order already, unless PT_LOADs overlap.
  std::stable_sort(info.missing.begin(), info.missing.end(),
                   [](const AddressRange &a, const AddressRange &b) { return a.start < b.start; });
  return info;
}

llvm::Expected<CoreFileInfo> readCoreFile(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return failure(path, buffer.getError().message());
  return parseCoreFile((*buffer)->getBuffer(), path);
}

} // namespace jitsym
