// Jitdump header and record parsing: bounds-checked reads of the format's
// layouts in the writer's byte order, no allocation except the line entries of
// CODE_DEBUG_INFO. Header-only LLVM, so the fuzz target builds without libLLVM.
#include "jitsym/formats/JitdumpParser.h"

#include <algorithm>
#include <cstring>

#include "jitsym/base/HexText.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

namespace jitsym {
namespace {

constexpr uint32_t kMaxHeaderSize = 1u << 20;
// Line entries lie within this distance of their code's start.
constexpr uint64_t kMaxDebugSpan = uint64_t(1) << 32;

// Reads the format's layouts and NUL-terminated strings from a byte range;
// every read fails rather than run past the end.
class Cursor {
public:
  Cursor(std::string_view bytes, bool byteSwapped, size_t at = 0)
      : bytes_(bytes), at_(at), byteSwapped_(byteSwapped) {}

  // One of JitdumpFormat.h's structs, in this machine's byte order.
  template <class Layout> bool read(Layout &layout) {
    if (at_ > bytes_.size() || bytes_.size() - at_ < sizeof(Layout))
      return false;
    std::memcpy(&layout, bytes_.data() + at_, sizeof(Layout));
    if (byteSwapped_)
      byteSwap(layout);
    at_ += sizeof(Layout);
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
  bool byteSwapped_;
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

bool isDefinedRecordId(uint32_t id) {
  switch (static_cast<JitdumpRecordId>(id)) {
  case JitdumpRecordId::CodeLoad:
  case JitdumpRecordId::CodeMove:
  case JitdumpRecordId::CodeDebugInfo:
  case JitdumpRecordId::CodeClose:
  case JitdumpRecordId::CodeUnwindingInfo:
  case JitdumpRecordId::JitsymCodeUnload:
  case JitdumpRecordId::JitsymCodeEntry:
    return true;
  }
  return false;
}

void needBytes(JitdumpRecordParse &parse, uint64_t bytes) {
  parse.kind = JitdumpRecordParse::NeedBytes;
  parse.needBytes = bytes;
}

void parseCodeLoad(Cursor &c, JitdumpRecordParse &parse, size_t available) {
  const uint32_t size = parse.record.size;
  if (tooSmall(parse, sizeof(jr_code_load) + 1, "its fields and a name"))
    return;
  if (available < sizeof(jr_code_load))
    return needBytes(parse, sizeof(jr_code_load));
  jr_code_load raw{};
  c.read(raw);
  JitCodeLoad load;
  load.pid = raw.pid;
  load.tid = raw.tid;
  load.vma = raw.vma;
  load.codeAddress = raw.code_addr;
  load.codeSize = raw.code_size;
  load.codeIndex = raw.code_index;
  if (load.codeSize > size - sizeof(jr_code_load) - 1)
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
  jr_code_move raw{};
  if (tooSmall(parse, sizeof raw))
    return;
  c.read(raw);
  JitCodeMove move;
  move.pid = raw.pid;
  move.tid = raw.tid;
  move.vma = raw.vma;
  move.oldAddress = raw.old_code_addr;
  move.newAddress = raw.new_code_addr;
  move.codeSize = raw.code_size;
  move.codeIndex = raw.code_index;
  if (move.newAddress + move.codeSize < move.newAddress)
    return malformed(parse, "new range wraps past the end of memory");
  parse.record.body = move;
  parse.kind = JitdumpRecordParse::Complete;
  parse.contentSize = sizeof raw;
}

void parseCodeUnload(Cursor &c, JitdumpRecordParse &parse) {
  jitsym_code_unload raw{};
  if (tooSmall(parse, sizeof raw))
    return;
  c.read(raw);
  JitCodeUnload unload;
  unload.pid = raw.pid;
  unload.tid = raw.tid;
  unload.codeAddress = raw.code_addr;
  unload.codeSize = raw.code_size;
  unload.codeIndex = raw.code_index;
  parse.record.body = unload;
  parse.kind = JitdumpRecordParse::Complete;
  parse.contentSize = sizeof raw;
}

void parseCodeEntry(Cursor &c, JitdumpRecordParse &parse) {
  jitsym_code_entry raw{};
  if (tooSmall(parse, sizeof raw))
    return;
  c.read(raw);
  if (raw.entry_addr <= raw.code_addr)
    return malformed(parse, "entry not after the code's start");
  JitCodeEntry entry;
  entry.pid = raw.pid;
  entry.tid = raw.tid;
  entry.codeAddress = raw.code_addr;
  entry.entryAddress = raw.entry_addr;
  parse.record.body = entry;
  parse.kind = JitdumpRecordParse::Complete;
  parse.contentSize = sizeof raw;
}

void parseDebugInfo(Cursor &c, JitdumpRecordParse &parse) {
  const uint32_t size = parse.record.size;
  jr_code_debug_info raw{};
  if (tooSmall(parse, sizeof raw))
    return;
  c.read(raw);
  JitDebugInfo info;
  info.codeAddress = raw.code_addr;
  const uint64_t count = raw.nr_entry;
  // Each entry takes at least its fixed part and a NUL.
  if (count > (size - sizeof raw) / (sizeof(debug_entry) + 1))
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
    debug_entry fixed{};
    std::string_view file;
    size_t entryStart = c.at();
    if (!c.read(fixed))
      return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    // While the address is implausible and the previous name (not a "same file"
    // marker) ended just before it, that name ended at a NUL inside it: let it
    // run on to the next NUL.
    while (i > 0 && !plausible(fixed.addr) &&
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
      if (!c.read(fixed))
        return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    }
    if (!c.readCString(size, file))
      return malformed(parse, "entry " + std::to_string(i) + " runs past the record's end");
    JitLineEntry entry;
    entry.address = fixed.addr;
    entry.line = fixed.lineno;
    entry.discriminator = fixed.discrim;
    if (file == "\xff") { // "same file as the previous entry"
      if (i == 0)
        return malformed(parse, "entry 0 refers to a previous file name");
      file = previousFile;
    }
    entry.file = previousFile = file;
    info.entries.push_back(entry);
  }
  parse.contentSize = c.at();
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
  jr_code_unwinding_info raw{};
  if (tooSmall(parse, sizeof raw))
    return;
  c.read(raw);
  JitUnwindingInfo info;
  info.unwindDataSize = raw.unwinding_size;
  info.ehFrameHeaderSize = raw.eh_frame_hdr_size;
  info.mappedSize = raw.mapped_size;
  if (info.unwindDataSize > size - sizeof raw)
    return malformed(parse, "unwind_data_size " + std::to_string(info.unwindDataSize) +
                                " runs past the record's end");
  if (info.ehFrameHeaderSize > info.unwindDataSize)
    return malformed(parse, "eh_frame_hdr_size " + std::to_string(info.ehFrameHeaderSize) +
                                " exceeds unwind_data_size " +
                                std::to_string(info.unwindDataSize));
  info.data = bytes.substr(sizeof raw, info.unwindDataSize);
  parse.record.body = info;
  parse.kind = JitdumpRecordParse::Complete;
  parse.contentSize = sizeof raw + info.unwindDataSize;
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
  case JitdumpRecordId::JitsymCodeEntry:
    return "JITSYM_CODE_ENTRY";
  }
  return "record " + std::to_string(id);
}

std::optional<JitdumpHeader> parseJitdumpHeader(std::string_view bytes, std::string &error) {
  error.clear();
  if (bytes.size() < sizeof(jitheader::magic))
    return std::nullopt;
  JitdumpHeader header;
  const uint32_t magic = llvm::support::endian::read32le(bytes.data());
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
  jitheader raw{};
  Cursor(bytes, header.byteSwapped).read(raw);
  header.version = raw.version;
  header.headerSize = raw.total_size;
  header.elfMachine = raw.elf_mach;
  header.pid = raw.pid;
  header.timestamp = raw.timestamp;
  header.flags = raw.flags;
  if (header.version == 0 || header.version > kJitdumpVersion) {
    error = "jitdump version " + std::to_string(header.version) + " is not supported (expected " +
            std::to_string(kJitdumpVersion) + ")";
    return std::nullopt;
  }
  if (header.headerSize < kJitdumpHeaderSize || header.headerSize > kMaxHeaderSize) {
    error = "header total_size " + std::to_string(header.headerSize) + " is out of range (" +
            std::to_string(kJitdumpHeaderSize) + " to " + std::to_string(kMaxHeaderSize) + ")";
    return std::nullopt;
  }
  return header;
}

JitdumpRecordParse parseJitdumpRecord(std::string_view bytes, bool byteSwapped) {
  JitdumpRecordParse parse;
  if (bytes.size() < kJitdumpRecordHeaderSize) {
    needBytes(parse, kJitdumpRecordHeaderSize);
    return parse;
  }
  Cursor c(bytes, byteSwapped);
  jr_prefix prefix{};
  c.read(prefix);
  parse.record.id = prefix.id;
  parse.record.size = prefix.total_size;
  parse.record.timestamp = prefix.timestamp;
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
    Cursor record(bytes, byteSwapped); // the layouts start with the prefix
    parseCodeLoad(record, parse, bytes.size());
    return parse;
  }
  if (bytes.size() < size) {
    needBytes(parse, size);
    return parse;
  }
  bytes = bytes.substr(0, size);
  Cursor body(bytes, byteSwapped); // the layouts start with the prefix
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
    parse.contentSize = kJitdumpRecordHeaderSize;
    break;
  case JitdumpRecordId::JitsymCodeUnload:
    parseCodeUnload(body, parse);
    break;
  case JitdumpRecordId::JitsymCodeEntry:
    parseCodeEntry(body, parse);
    break;
  default:
    break; // an id from a newer writer: skipped by size
  }
  return parse;
}

RecordStart jitdumpRecordHeaderAt(std::string_view bytes, const JitdumpHeader &header) {
  jr_prefix prefix{};
  if (!Cursor(bytes, header.byteSwapped).read(prefix))
    return RecordStart::Unknown;
  return prefix.total_size >= kJitdumpRecordHeaderSize &&
                 prefix.total_size <= kJitdumpMaxRecordSize && isDefinedRecordId(prefix.id)
             ? RecordStart::Yes
             : RecordStart::No;
}

RecordStart jitdumpRecordStartsAt(std::string_view bytes, const JitdumpHeader &header) {
  // Most candidate offsets fail here, before a parse would word its error.
  if (const RecordStart start = jitdumpRecordHeaderAt(bytes, header); start != RecordStart::Yes)
    return start;
  // Told by the fixed fields alone (and a name's first byte), never by a
  // record's whole length: a candidate is decided within a few dozen bytes.
  auto fixed = [&](auto layout, auto &&fits) {
    if (!Cursor(bytes, header.byteSwapped).read(layout))
      return RecordStart::Unknown;
    return layout.p.total_size >= sizeof layout && fits(layout) ? RecordStart::Yes
                                                                 : RecordStart::No;
  };
  auto ofThisProcess = [&](uint32_t pid) { return header.pid == 0 || pid == header.pid; };
  jr_prefix prefix{};
  Cursor(bytes, header.byteSwapped).read(prefix);
  const uint64_t size = prefix.total_size;
  switch (static_cast<JitdumpRecordId>(prefix.id)) {
  case JitdumpRecordId::CodeLoad:
    if (bytes.size() <= sizeof(jr_code_load))
      return RecordStart::Unknown;
    return fixed(jr_code_load{}, [&](const jr_code_load &load) {
      return ofThisProcess(load.pid) && load.code_size < size - sizeof load &&
             load.code_addr + load.code_size >= load.code_addr &&
             bytes[sizeof load] != '\0'; // a name
    });
  case JitdumpRecordId::CodeMove:
    return fixed(jr_code_move{}, [&](const jr_code_move &move) {
      return ofThisProcess(move.pid) && move.new_code_addr + move.code_size >= move.new_code_addr;
    });
  case JitdumpRecordId::CodeDebugInfo:
    return fixed(jr_code_debug_info{}, [&](const jr_code_debug_info &info) {
      return info.nr_entry <= (size - sizeof info) / (sizeof(debug_entry) + 1);
    });
  case JitdumpRecordId::CodeUnwindingInfo:
    return fixed(jr_code_unwinding_info{}, [&](const jr_code_unwinding_info &info) {
      return info.unwinding_size <= size - sizeof info &&
             info.eh_frame_hdr_size <= info.unwinding_size;
    });
  case JitdumpRecordId::CodeClose:
    return size <= kJitdumpRecordHeaderSize + 7 ? RecordStart::Yes : RecordStart::No;
  case JitdumpRecordId::JitsymCodeUnload:
    return fixed(jitsym_code_unload{}, [&](const jitsym_code_unload &unload) {
      return ofThisProcess(unload.pid);
    });
  case JitdumpRecordId::JitsymCodeEntry:
    return fixed(jitsym_code_entry{}, [&](const jitsym_code_entry &entry) {
      return ofThisProcess(entry.pid) && entry.entry_addr > entry.code_addr;
    });
  }
  return RecordStart::No;
}

namespace {
constexpr uint64_t kMaxPadding = 7; // writers align records to 8 bytes
} // namespace

bool jitdumpSizeInDoubt(const JitdumpRecordParse &parse) {
  return parse.kind == JitdumpRecordParse::Complete && parse.contentSize != 0 &&
         parse.contentSize + kMaxPadding < parse.record.size;
}

std::optional<uint64_t> jitdumpNextRecord(std::string_view bytes, const JitdumpRecordParse &parse,
                                          const JitdumpHeader &header, bool likeliest) {
  const uint64_t size = parse.record.size;
  if (!jitdumpSizeInDoubt(parse))
    return size;
  if (bytes.size() < size)
    return std::nullopt;
  const RecordStart atSize = jitdumpRecordStartsAt(bytes.substr(size), header);
  if (atSize == RecordStart::Yes)
    return size;
  bool unknown = atSize == RecordStart::Unknown;
  if (unknown && !likeliest)
    return std::nullopt;
  const uint64_t content = parse.contentSize;
  for (uint64_t end = content; end <= content + kMaxPadding; ++end) {
    if (end > content && bytes[end - 1] != '\0')
      break; // padding is zeros
    switch (jitdumpRecordStartsAt(bytes.substr(end), header)) {
    case RecordStart::Yes:
      return end;
    case RecordStart::Unknown:
      if (!likeliest)
        return std::nullopt;
      unknown = true;
      break;
    case RecordStart::No:
      break;
    }
  }
  if (unknown)
    return std::nullopt;
  return size; // no record either way: the reader loses its step there
}

} // namespace jitsym
