// Parsing perf jitdump files (Linux tools/perf/Documentation/jitdump-specification.txt)
// as pure functions over bytes. Every field is read in the writer's byte order,
// every read is bounds-checked, and nothing is copied: names, file names and
// unwind data point into the parsed bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace jitsym {

constexpr uint32_t kJitdumpMagic = 0x4A695444; // "JiTD" in the writer's order
constexpr size_t kJitdumpHeaderSize = 40;
constexpr size_t kJitdumpRecordHeaderSize = 16;
// A record bigger than this is taken as corrupt (JIT functions are KiBs to MiBs).
constexpr uint32_t kJitdumpMaxRecordSize = 1u << 30;

enum class JitdumpRecordId : uint32_t {
  CodeLoad = 0,
  CodeMove = 1,
  CodeDebugInfo = 2,
  CodeClose = 3,
  CodeUnwindingInfo = 4,
  // jitsym's own record (the specification has none for this): the code that
  // CODE_LOAD code_index put at [code_addr, code_addr + code_size) was freed.
  // Body: u32 pid, u32 tid, u64 code_addr, u64 code_size, u64 code_index.
  // Other readers skip it by total_size as they skip any id they do not know
  // (perf inject warns "unknown record type" and goes on). "JS" 0001: far from
  // the ids the specification may add.
  JitsymCodeUnload = 0x4A530001,
};

// Line entry addresses follow perf inject's convention, which V8 writes: the
// code's address plus the offset of the line's code plus 0x40, where perf's
// generated ELF puts its .text.
constexpr uint64_t kPerfDebugAddressBias = 0x40;

// "CODE_LOAD", or "record 7" for ids the specification does not define.
std::string jitdumpRecordName(uint32_t id);

struct JitdumpHeader {
  bool byteSwapped = false; // written on a machine of the other byte order
  uint32_t version = 0;
  uint32_t headerSize = 0;  // total_size: where the first record starts
  uint32_t elfMachine = 0;  // ELF e_machine of the code
  uint32_t pid = 0;
  uint64_t timestamp = 0;
  uint64_t flags = 0;       // bit 0: timestamps are architecture cycles (TSC)
};

// Checks the header at the start of a file. nullopt with an empty `error` means
// more bytes are needed (the writer has not finished the header).
std::optional<JitdumpHeader> parseJitdumpHeader(std::string_view bytes, std::string &error);

// The LLVM triple architecture for an ELF e_machine ("x86_64", "aarch64", ...);
// empty when unknown.
std::string architectureForElfMachine(uint32_t machine);

struct JitCodeLoad {
  uint32_t pid = 0, tid = 0;
  uint64_t vma = 0, codeAddress = 0, codeSize = 0, codeIndex = 0;
  std::string_view name;
  uint64_t codeOffset = 0; // of the code bytes, from the start of the record
};

struct JitCodeMove {
  uint32_t pid = 0, tid = 0;
  uint64_t vma = 0, oldAddress = 0, newAddress = 0, codeSize = 0, codeIndex = 0;
};

struct JitLineEntry {
  uint64_t address = 0; // absolute code address this line starts at
  uint32_t line = 0;
  uint32_t discriminator = 0;
  std::string_view file; // the "same file as before" marker already resolved
};

struct JitDebugInfo {
  uint64_t codeAddress = 0; // of the CODE_LOAD that follows
  std::vector<JitLineEntry> entries;
};

struct JitUnwindingInfo {
  uint64_t unwindDataSize = 0; // .eh_frame followed by .eh_frame_hdr
  uint64_t ehFrameHeaderSize = 0;
  uint64_t mappedSize = 0;
  std::string_view data; // unwindDataSize bytes
};

struct JitCodeClose {};

struct JitCodeUnload {
  uint32_t pid = 0, tid = 0;
  uint64_t codeAddress = 0, codeSize = 0, codeIndex = 0;
};

struct JitdumpRecord {
  uint32_t id = 0;
  uint32_t size = 0;      // total_size, header included
  uint64_t timestamp = 0;
  // Empty for an id the specification does not define (skipped by size).
  std::variant<std::monostate, JitCodeLoad, JitCodeMove, JitDebugInfo, JitUnwindingInfo,
               JitCodeClose, JitCodeUnload>
      body;
};

// What the bytes at a record boundary hold.
struct JitdumpRecordParse {
  enum Kind {
    Complete,  // `record` is filled; the next record starts `record.size` bytes on
    NeedBytes, // `needBytes` bytes from the record's start are needed to parse it
    Malformed, // the record is unusable but its size is sane: skip `record.size`
    Corrupt,   // the size itself is unusable: nothing after this can be read
  } kind = NeedBytes;
  uint64_t needBytes = kJitdumpRecordHeaderSize;
  JitdumpRecord record;
  std::string error; // for Malformed and Corrupt
};

// Parses the record at the start of `bytes`. The code bytes of CODE_LOAD are
// not needed (nor read): a CODE_LOAD is Complete once its fields and name are in
// `bytes`. Whether the whole record is in the file is the caller's question.
JitdumpRecordParse parseJitdumpRecord(std::string_view bytes, bool byteSwapped);

} // namespace jitsym
