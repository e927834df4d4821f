// The jitdump format's fixed layouts as plain structs named after the
// specification (Linux tools/perf/Documentation/jitdump-specification.txt, the
// same names as perf's util/jitdump.h): the one description that the parser and
// every writer (JitdumpWriter, and through it the producers and agents) share.
// LLVM-free, as in-process producers include it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace jitsym {

constexpr uint32_t kJitdumpMagic = 0x4A695444; // "JiTD" in the writer's order
constexpr uint32_t kJitdumpVersion = 1;
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
  // Layout: jitsym_code_unload. Other readers skip it by total_size as they
  // skip any id they do not know (perf inject warns "unknown record type" and
  // goes on). "JS" 0001: far from the ids the specification may add.
  JitsymCodeUnload = 0x4A530001,
  // jitsym's: where the code of the CODE_LOAD that follows at code_addr is
  // entered, when not at its first byte. Every call into it passes
  // entry_addr (HotSpot's verified entry point: the code before it checks an
  // inline cache, then falls through into it or leaves), so a breakpoint on
  // the function's name goes there. Layout: jitsym_code_entry.
  JitsymCodeEntry = 0x4A530002,
};

// Line entry addresses follow perf inject's convention, which V8 writes: the
// code's address plus the offset of the line's code plus 0x40, where perf's
// generated ELF puts its .text.
constexpr uint64_t kPerfDebugAddressBias = 0x40;

// The fixed parts, in the writer's byte order in the file. What follows a
// fixed part (names, code, entries, unwind data) is described beside it.

struct jitheader {
  uint32_t magic;
  uint32_t version;
  uint32_t total_size; // of this header; records start there
  uint32_t elf_mach;   // ELF e_machine of the code
  uint32_t pad1;
  uint32_t pid;
  uint64_t timestamp;
  uint64_t flags;      // bit 0: timestamps are architecture cycles (TSC)
};

struct jr_prefix {
  uint32_t id;
  uint32_t total_size; // of the whole record, this prefix included
  uint64_t timestamp;
};

// Then the NUL-terminated name, then code_size bytes of code (the last
// code_size bytes of the record).
struct jr_code_load {
  jr_prefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t code_addr;
  uint64_t code_size;
  uint64_t code_index;
};

struct jr_code_move {
  jr_prefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t vma;
  uint64_t old_code_addr;
  uint64_t new_code_addr;
  uint64_t code_size;
  uint64_t code_index;
};

// Then nr_entry debug_entry, each followed by its NUL-terminated file name
// ("\xff" alone: the previous entry's).
struct jr_code_debug_info {
  jr_prefix p;
  uint64_t code_addr;
  uint64_t nr_entry;
};

// The specification's lineno and discrim are ints; both are counts from 1
// (discrim is V8's column), read unsigned.
struct debug_entry {
  uint64_t addr; // + kPerfDebugAddressBias
  uint32_t lineno;
  uint32_t discrim;
};

struct jr_code_close {
  jr_prefix p;
};

// Then unwinding_size bytes: .eh_frame, then .eh_frame_hdr (eh_frame_hdr_size
// of them).
struct jr_code_unwinding_info {
  jr_prefix p;
  uint64_t unwinding_size;
  uint64_t eh_frame_hdr_size;
  uint64_t mapped_size;
};

// JitdumpRecordId::JitsymCodeUnload.
struct jitsym_code_unload {
  jr_prefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t code_addr;
  uint64_t code_size;
  uint64_t code_index;
};

// JitdumpRecordId::JitsymCodeEntry.
struct jitsym_code_entry {
  jr_prefix p;
  uint32_t pid;
  uint32_t tid;
  uint64_t code_addr;
  uint64_t entry_addr;
};

// The layouts are the file's: no padding anywhere, on every ABI jitsym builds for.
static_assert(sizeof(jitheader) == 40 && offsetof(jitheader, version) == 4 &&
              offsetof(jitheader, total_size) == 8 && offsetof(jitheader, elf_mach) == 12 &&
              offsetof(jitheader, pad1) == 16 && offsetof(jitheader, pid) == 20 &&
              offsetof(jitheader, timestamp) == 24 && offsetof(jitheader, flags) == 32);
static_assert(sizeof(jr_prefix) == 16 && offsetof(jr_prefix, total_size) == 4 &&
              offsetof(jr_prefix, timestamp) == 8);
static_assert(sizeof(jr_code_load) == 56 && offsetof(jr_code_load, pid) == 16 &&
              offsetof(jr_code_load, tid) == 20 && offsetof(jr_code_load, vma) == 24 &&
              offsetof(jr_code_load, code_addr) == 32 &&
              offsetof(jr_code_load, code_size) == 40 &&
              offsetof(jr_code_load, code_index) == 48);
static_assert(sizeof(jr_code_move) == 64 && offsetof(jr_code_move, pid) == 16 &&
              offsetof(jr_code_move, tid) == 20 && offsetof(jr_code_move, vma) == 24 &&
              offsetof(jr_code_move, old_code_addr) == 32 &&
              offsetof(jr_code_move, new_code_addr) == 40 &&
              offsetof(jr_code_move, code_size) == 48 &&
              offsetof(jr_code_move, code_index) == 56);
static_assert(sizeof(jr_code_debug_info) == 32 && offsetof(jr_code_debug_info, code_addr) == 16 &&
              offsetof(jr_code_debug_info, nr_entry) == 24);
static_assert(sizeof(debug_entry) == 16 && offsetof(debug_entry, lineno) == 8 &&
              offsetof(debug_entry, discrim) == 12);
static_assert(sizeof(jr_code_close) == 16);
static_assert(sizeof(jr_code_unwinding_info) == 40 &&
              offsetof(jr_code_unwinding_info, unwinding_size) == 16 &&
              offsetof(jr_code_unwinding_info, eh_frame_hdr_size) == 24 &&
              offsetof(jr_code_unwinding_info, mapped_size) == 32);
static_assert(sizeof(jitsym_code_unload) == 48 && offsetof(jitsym_code_unload, pid) == 16 &&
              offsetof(jitsym_code_unload, tid) == 20 &&
              offsetof(jitsym_code_unload, code_addr) == 24 &&
              offsetof(jitsym_code_unload, code_size) == 32 &&
              offsetof(jitsym_code_unload, code_index) == 40);

constexpr size_t kJitdumpHeaderSize = sizeof(jitheader);
constexpr size_t kJitdumpRecordHeaderSize = sizeof(jr_prefix);

// Byte-swaps every field in place: a file written on a machine of the other
// byte order reads as the same structs once swapped.
namespace jitdump_detail {
inline void swap(uint32_t &v) { v = __builtin_bswap32(v); }
inline void swap(uint64_t &v) { v = __builtin_bswap64(v); }
} // namespace jitdump_detail

inline void byteSwap(jitheader &h) {
  using jitdump_detail::swap;
  swap(h.magic), swap(h.version), swap(h.total_size), swap(h.elf_mach), swap(h.pad1);
  swap(h.pid), swap(h.timestamp), swap(h.flags);
}
inline void byteSwap(jr_prefix &p) {
  using jitdump_detail::swap;
  swap(p.id), swap(p.total_size), swap(p.timestamp);
}
inline void byteSwap(jr_code_load &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.pid), swap(r.tid), swap(r.vma), swap(r.code_addr), swap(r.code_size);
  swap(r.code_index);
}
inline void byteSwap(jr_code_move &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.pid), swap(r.tid), swap(r.vma), swap(r.old_code_addr), swap(r.new_code_addr);
  swap(r.code_size), swap(r.code_index);
}
inline void byteSwap(jr_code_debug_info &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.code_addr), swap(r.nr_entry);
}
inline void byteSwap(debug_entry &e) {
  using jitdump_detail::swap;
  swap(e.addr), swap(e.lineno), swap(e.discrim);
}
inline void byteSwap(jr_code_close &r) { byteSwap(r.p); }
inline void byteSwap(jr_code_unwinding_info &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.unwinding_size), swap(r.eh_frame_hdr_size), swap(r.mapped_size);
}
inline void byteSwap(jitsym_code_unload &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.pid), swap(r.tid), swap(r.code_addr), swap(r.code_size), swap(r.code_index);
}

inline void byteSwap(jitsym_code_entry &r) {
  using jitdump_detail::swap;
  byteSwap(r.p);
  swap(r.pid), swap(r.tid), swap(r.code_addr), swap(r.entry_addr);
}

static_assert(sizeof(jitsym_code_entry) == 40 && offsetof(jitsym_code_entry, code_addr) == 24 &&
              offsetof(jitsym_code_entry, entry_addr) == 32);

} // namespace jitsym
