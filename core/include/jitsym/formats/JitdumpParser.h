// Parsing perf jitdump files (Linux tools/perf/Documentation/jitdump-specification.txt)
// as pure functions over bytes, through the layouts of JitdumpFormat.h. Every
// field is read in the writer's byte order, every read is bounds-checked, and
// nothing is copied: names, file names and unwind data point into the parsed
// bytes. What V8 gets wrong is repaired after parsing (V8Repairs.h), except
// where a damaged file name must be read past to find the next line entry.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "jitsym/formats/JitdumpFormat.h" // the layouts, ids and constants of the format

namespace jitsym {

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
