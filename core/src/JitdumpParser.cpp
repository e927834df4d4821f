// Jitdump header and record parsing: bounds-checked reads in the writer's byte
// order, no allocation except the line entries of CODE_DEBUG_INFO. Header-only
// LLVM, so the fuzz target builds without libLLVM.
#include "jitsym/JitdumpParser.h"

#include <algorithm>
#include <cstring>

#include "jitsym/HexText.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

namespace jitsym {
namespace {

constexpr uint32_t kSupportedVersion = 1;
constexpr uint32_t kMaxHeaderSize = 1u << 20;
constexpr size_t kCodeLoadFixed = kJitdumpRecordHeaderSize + 40;
constexpr size_t kCodeMoveFixed = kJitdumpRecordHeaderSize + 48;
constexpr size_t kDebugInfoFixed = kJitdumpRecordHeaderSize + 16;
constexpr size_t kDebugEntryFixed = 16;
constexpr size_t kUnwindingFixed = kJitdumpRecordHeaderSize + 24;
constexpr size_t kCodeUnloadFixed = kJitdumpRecordHeaderSize + 32;
// Line entries lie within this distance of their code's start.
constexpr uint64_t kMaxDebugSpan = uint64_t(1) << 32;

// Reads fixed-size fields and NUL-terminated strings from a byte range; every
// read fails rather than run past the end.
class Cursor {
public:
  Cursor(std::string_view bytes, bool byteSwapped, size_t at = 0)
      : bytes_(bytes), at_(at),
        order_(byteSwapped == (llvm::endianness::native == llvm::endianness::little)
                   ? llvm::endianness::big
                   : llvm::endianness::little) {}

  template <class T> bool read(T &value) {
    if (at_ > bytes_.size() || bytes_.size() - at_ < sizeof(T))
      return false;
    value = llvm::support::endian::read<T>(bytes_.data() + at_, order_);
    at_ += sizeof(T);
    return true;
  }
  // A string ending at the first NUL before `limit`.
  bool readCString(size_t limit, std::string_view &text) {
    limit = std::min(limit, bytes_.size());
    if (at_ >= limit)
      return false;
    const void *nul = std::memchr(bytes_.data() + at_, '\0', limit - at_);
    if (!nul)
      return false;
    const size_t end = static_cast<const char *>(nul) - bytes_.data();
    text = bytes_.substr(at_, end - at_);
    at_ = end + 1;
    return true;
  }
  size_t at() const { return at_; }
  void seek(size_t at) { at_ = at; }
  std::string_view bytes() const { return bytes_; }

private:
  std::string_view bytes_;
  size_t at_;
  llvm::endianness order_;
};

// The helpers below fill `parse` in place (copies of the variant upset GCC's
// uninitialized-use analysis).
void malformed(JitdumpRecordParse &parse, const std::string &what) {
  parse.kind = JitdumpRecordParse::Malformed;
  parse.error = jitdumpRecordName(parse.record.id) + ": " + what;
}

// True, with `parse` marked malformed, when the record is smaller than the
// `fixed` bytes of its `fields`.
bool tooSmall(JitdumpRecordParse &parse, uint64_t fixed, const char *fields = "its fields") {
  if (parse.record.size >= fixed)
    return false;
  malformed(parse, "record of " + std::to_string(parse.record.size) + " bytes is too small for " +
                       fields);
  return true;
}

void needBytes(JitdumpRecordParse &parse, uint64_t bytes) {
  parse.kind = JitdumpRecordParse::NeedBytes;
  parse.needBytes = bytes;
}

void parseCodeLoad(Cursor &c, JitdumpRecordParse &parse, size_t available) {
  const uint32_t size = parse.record.size;
  if (tooSmall(parse, kCodeLoadFixed + 1, "its fields and a name"))
    return;
  if (available < kCodeLoadFixed)
    return needBytes(parse, kCodeLoadFixed);
  JitCodeLoad load;
  c.read(load.pid);
  c.read(load.tid);
  c.read(load.vma);
  c.read(load.codeAddress);
  c.read(load.codeSize);
  c.read(load.codeIndex);
  if (load.codeSize > size - kCodeLoadFixed - 1)
    return malformed(parse, "code_size " + std::to_string(load.codeSize) +
                                " leaves no room for the name in a record of " +
                                std::to_string(size) + " bytes");
  if (load.codeAddress + load.codeSize < load.codeAddress)
    return malformed(parse, "code at " + hexText(load.codeAddress) + " of size " +
                                hexText(load.codeSize) + " wraps past the end of memory");
  const size_t nameEnd = size - load.codeSize;
  if (available < nameEnd)
    return needBytes(parse, nameEnd);
  if (!c.readCString(nameEnd, load.name))
    return malformed(parse, "name is not NUL-terminated");
  load.codeOffset = nameEnd;
  parse.record.body = load;
  parse.kind = JitdumpRecordParse::Complete;
}

void parseCodeMove(Cursor &c, JitdumpRecordParse &parse) {
  if (tooSmall(parse, kCodeMoveFixed))
    return;
  JitCodeMove move;
  c.read(move.pid);
  c.read(move.tid);
  c.read(move.vma);
  c.read(move.oldAddress);
  c.read(move.newAddress);
  c.read(move.codeSize);
  c.read(move.codeIndex);
  if (move.newAddress + move.codeSize < move.newAddress)
    return malformed(parse, "new range wraps past the end of memory");
  parse.record.body = move;
  parse.kind = JitdumpRecordParse::Complete;
}

void parseCodeUnload(Cursor &c, JitdumpRecordParse &parse) {
  if (tooSmall(parse, kCodeUnloadFixed))
    return;
  JitCodeUnload unload;
  c.read(unload.pid);
  c.read(unload.tid);
  c.read(unload.codeAddress);
  c.read(unload.codeSize);
  c.read(unload.codeIndex);
  parse.record.body = unload;
  parse.kind = JitdumpRecordParse::Complete;
}

void parseDebugInfo(Cursor &c, JitdumpRecordParse &parse) {
  const uint32_t size = parse.record.size;
  if (tooSmall(parse, kDebugInfoFixed))
    return;
  JitDebugInfo info;
  uint64_t count = 0;
  c.read(info.codeAddress);
  c.read(count);
  // Each entry takes at least its fixed part and a NUL.
  if (count > (size - kDebugInfoFixed) / (kDebugEntryFixed + 1))
    return malformed(parse, "nr_entry " + std::to_string(count) +
                                " entries cannot fit in a record of " +
                                std::to_string(size) + " bytes");
  info.entries.reserve(count);
  // Node 20's V8 sometimes writes a file name whose first bytes are freed memory
  // (NULs included) with the right length: a NUL inside a name makes the next
  // entry's address implausible, and the name then runs on to the next NUL.
  auto plausible = [&](uint64_t address) {
    return address >= info.codeAddress && address - info.codeAddress < kMaxDebugSpan;
  };
  std::string_view previousFile;
  for (uint64_t i = 0; i < count; ++i) {
    JitLineEntry entry;
    std::string_view file;
    size_t entryStart = c.at();
    if (!c.read(entry.address))
      return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    // While the address is implausible and the previous name (not a "same file"
    // marker) ended just before it, that name ended at a NUL inside it: let it
    // run on to the next NUL.
    while (i > 0 && !plausible(entry.address) &&
           info.entries.back().file.data() + info.entries.back().file.size() + 1 ==
               c.bytes().data() + entryStart) {
      JitLineEntry &last = info.entries.back();
      std::string_view more;
      c.seek(entryStart);
      if (!c.readCString(size, more))
        return malformed(parse, "entry " + std::to_string(i - 1) +
                                    "'s file name runs past the record's end");
      last.file = std::string_view(last.file.data(), last.file.size() + 1 + more.size());
      previousFile = last.file;
      entryStart = c.at();
      if (!c.read(entry.address))
        return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    }
    if (!c.read(entry.line) || !c.read(entry.discriminator) || !c.readCString(size, file))
      return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    if (file == "\xff") { // "same file as the previous entry"
      if (i == 0)
        return malformed(parse, "entry 0 refers to a previous file name");
      file = previousFile;
    }
    entry.file = previousFile = file;
    info.entries.push_back(entry);
  }
  // The last name has no next entry to show it was cut short: when the record
  // holds the previous entry's name, byte for byte, where it starts, it is that.
  if (info.entries.size() >= 2) {
    std::string_view &last = info.entries.back().file;
    const std::string_view before = info.entries[info.entries.size() - 2].file;
    const size_t at = last.data() - c.bytes().data();
    if (last.size() < before.size() && at + before.size() < size &&
        c.bytes().substr(at, before.size()) == before)
      last = c.bytes().substr(at, before.size());
  }
  parse.record.body = std::move(info);
  parse.kind = JitdumpRecordParse::Complete;
}

void parseUnwindingInfo(Cursor &c, std::string_view bytes, JitdumpRecordParse &parse) {
  const uint32_t size = parse.record.size;
  if (tooSmall(parse, kUnwindingFixed))
    return;
  JitUnwindingInfo info;
  c.read(info.unwindDataSize);
  c.read(info.ehFrameHeaderSize);
  c.read(info.mappedSize);
  if (info.unwindDataSize > size - kUnwindingFixed)
    return malformed(parse, "unwind_data_size " + std::to_string(info.unwindDataSize) +
                                " runs past the record's end");
  if (info.ehFrameHeaderSize > info.unwindDataSize)
    return malformed(parse, "eh_frame_hdr_size " + std::to_string(info.ehFrameHeaderSize) +
                                " exceeds unwind_data_size " +
                                std::to_string(info.unwindDataSize));
  info.data = bytes.substr(kUnwindingFixed, info.unwindDataSize);
  parse.record.body = info;
  parse.kind = JitdumpRecordParse::Complete;
}

} // namespace

std::string jitdumpRecordName(uint32_t id) {
  switch (static_cast<JitdumpRecordId>(id)) {
  case JitdumpRecordId::CodeLoad:
    return "CODE_LOAD";
  case JitdumpRecordId::CodeMove:
    return "CODE_MOVE";
  case JitdumpRecordId::CodeDebugInfo:
    return "CODE_DEBUG_INFO";
  case JitdumpRecordId::CodeClose:
    return "CODE_CLOSE";
  case JitdumpRecordId::CodeUnwindingInfo:
    return "CODE_UNWINDING_INFO";
  case JitdumpRecordId::JitsymCodeUnload:
    return "JITSYM_CODE_UNLOAD";
  }
  return "record " + std::to_string(id);
}

std::optional<JitdumpHeader> parseJitdumpHeader(std::string_view bytes, std::string &error) {
  error.clear();
  if (bytes.size() < 4)
    return std::nullopt;
  JitdumpHeader header;
  uint32_t magic = llvm::support::endian::read32le(bytes.data());
  if (magic == kJitdumpMagic)
    header.byteSwapped = llvm::endianness::native != llvm::endianness::little;
  else if (magic == llvm::byteswap(kJitdumpMagic))
    header.byteSwapped = llvm::endianness::native == llvm::endianness::little;
  else {
    error = "not a jitdump file (magic " + hexText(magic) + ", expected 'JiTD')";
    return std::nullopt;
  }
  if (bytes.size() < kJitdumpHeaderSize)
    return std::nullopt;
  Cursor c(bytes, header.byteSwapped, 4);
  uint32_t pad = 0;
  c.read(header.version);
  c.read(header.headerSize);
  c.read(header.elfMachine);
  c.read(pad);
  c.read(header.pid);
  c.read(header.timestamp);
  c.read(header.flags);
  if (header.version == 0 || header.version > kSupportedVersion) {
    error = "jitdump version " + std::to_string(header.version) + " is not supported (expected " +
            std::to_string(kSupportedVersion) + ")";
    return std::nullopt;
  }
  if (header.headerSize < kJitdumpHeaderSize || header.headerSize > kMaxHeaderSize) {
    error = "header total_size " + std::to_string(header.headerSize) + " is out of range (" +
            std::to_string(kJitdumpHeaderSize) + " to " + std::to_string(kMaxHeaderSize) + ")";
    return std::nullopt;
  }
  return header;
}

std::string architectureForElfMachine(uint32_t machine) {
  switch (machine) {
  case llvm::ELF::EM_X86_64:
    return "x86_64";
  case llvm::ELF::EM_386:
    return "i386";
  case llvm::ELF::EM_AARCH64:
    return "aarch64";
  case llvm::ELF::EM_ARM:
    return "arm";
  case llvm::ELF::EM_RISCV:
    return "riscv64";
  case llvm::ELF::EM_PPC64:
    return "powerpc64le";
  case llvm::ELF::EM_S390:
    return "s390x";
  case llvm::ELF::EM_LOONGARCH:
    return "loongarch64";
  case llvm::ELF::EM_MIPS:
    return "mips64el";
  }
  return "";
}

JitdumpRecordParse parseJitdumpRecord(std::string_view bytes, bool byteSwapped) {
  JitdumpRecordParse parse;
  if (bytes.size() < kJitdumpRecordHeaderSize) {
    needBytes(parse, kJitdumpRecordHeaderSize);
    return parse;
  }
  Cursor c(bytes, byteSwapped);
  c.read(parse.record.id);
  c.read(parse.record.size);
  c.read(parse.record.timestamp);
  const uint32_t size = parse.record.size;
  if (size < kJitdumpRecordHeaderSize || size > kJitdumpMaxRecordSize) {
    parse.kind = JitdumpRecordParse::Corrupt;
    parse.error = jitdumpRecordName(parse.record.id) + ": total_size " + std::to_string(size) +
                  " is impossible (a record takes " +
                  std::to_string(kJitdumpRecordHeaderSize) + " to " +
                  std::to_string(kJitdumpMaxRecordSize) + " bytes)";
    return parse;
  }
  const auto id = static_cast<JitdumpRecordId>(parse.record.id);
  if (id == JitdumpRecordId::CodeLoad) {
    parseCodeLoad(c, parse, bytes.size());
    return parse;
  }
  if (bytes.size() < size) {
    needBytes(parse, size);
    return parse;
  }
  bytes = bytes.substr(0, size);
  Cursor body(bytes, byteSwapped, kJitdumpRecordHeaderSize);
  parse.kind = JitdumpRecordParse::Complete;
  switch (id) {
  case JitdumpRecordId::CodeMove:
    parseCodeMove(body, parse);
    break;
  case JitdumpRecordId::CodeDebugInfo:
    parseDebugInfo(body, parse);
    break;
  case JitdumpRecordId::CodeUnwindingInfo:
    parseUnwindingInfo(body, bytes, parse);
    break;
  case JitdumpRecordId::CodeClose:
    parse.record.body = JitCodeClose{};
    break;
  case JitdumpRecordId::JitsymCodeUnload:
    parseCodeUnload(body, parse);
    break;
  default:
    break; // an id from a newer writer: skipped by size
  }
  return parse;
}

} // namespace jitsym
