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

// Where the code of the next CODE_LOAD at codeAddress is entered.
struct JitCodeEntry {
  uint32_t pid = 0, tid = 0;
  uint64_t codeAddress = 0, entryAddress = 0;
};

struct JitdumpRecord {
  uint32_t id = 0;
  uint32_t size = 0;      // total_size, header included
  uint64_t timestamp = 0;
  // Empty for an id the specification does not define (skipped by size).
  std::variant<std::monostate, JitCodeLoad, JitCodeMove, JitDebugInfo, JitUnwindingInfo,
               JitCodeClose, JitCodeUnload, JitCodeEntry>
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
  // Where the record's fields end, from its start, when its layout says so
  // (CODE_DEBUG_INFO: after the last entry's name; CODE_MOVE, CODE_CLOSE: the
  // fixed part; 0 for CODE_LOAD, whose code fills the rest). A writer may pad
  // the record after them; total_size should say the same.
  uint64_t contentSize = 0;
};

// Parses the record at the start of `bytes`. The code bytes of CODE_LOAD are
// not needed (nor read): a CODE_LOAD is Complete once its fields and name are in
// `bytes`. Whether the whole record is in the file is the caller's question.
JitdumpRecordParse parseJitdumpRecord(std::string_view bytes, bool byteSwapped);

// Whether a record a writer of `header`'s file could have written starts at
// the start of `bytes`: an id the specification (or jitsym) defines, a sane
// size, fixed fields that fit in it, a CODE_LOAD (with a name) or CODE_MOVE of
// the header's process. Told from the record's first few dozen bytes, so
// Unknown only while those run past `bytes`. What a reader that lost its step
// tests a candidate boundary with: unknown ids are never taken for one.
enum class RecordStart { No, Yes, Unknown };
RecordStart jitdumpRecordStartsAt(std::string_view bytes, const JitdumpHeader &header);
// Weaker: only the record's 16-byte header is checked (a defined id, a sane
// size). What a record skipped by its size must be followed by.
RecordStart jitdumpRecordHeaderAt(std::string_view bytes, const JitdumpHeader &header);

// Where the record after the one parsed at the start of `bytes` starts, from
// its start: total_size, unless the record's fields end well before that
// (more than 7 bytes of padding), the bytes at total_size start no record and
// a record starts where its fields end (after at most 7 bytes of zero
// padding). V8 14 writes such CODE_DEBUG_INFO records for code inlined across
// scripts: it counts one file name's length and writes another's. nullopt
// while `bytes` end too soon to tell. With `likeliest`, a record complete
// where the fields end is taken while the one at total_size is still cut off
// by the end of `bytes` (for provisional reading and finished files: what the
// writer appends next could only prove it wrong in theory); without, the
// answer waits until both are told, so the same bytes read in pieces or whole
// give the same answer.
std::optional<uint64_t> jitdumpNextRecord(std::string_view bytes, const JitdumpRecordParse &parse,
                                          const JitdumpHeader &header, bool likeliest = false);
// Whether the record's size is in doubt: its fields, by its layout, end more
// than padding before its total_size. Only such records need
// jitdumpNextRecord's look at the bytes after them.
bool jitdumpSizeInDoubt(const JitdumpRecordParse &parse);

} // namespace jitsym
