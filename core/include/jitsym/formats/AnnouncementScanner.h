// What the in-process write filter (agents/watch) reads of a runtime's writes
// to its perf map or its jitdump, as it passes them on: the announcements they
// complete, and whether the debugger's watch list (WatchList.h) wants any of
// them. Pure over the bytes given; LLVM-free (it runs inside the runtime).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "jitsym/formats/WatchList.h"

namespace jitsym {

// A perf map's text, in the pieces a runtime writes it in (V8: one line per
// fprintf; others: several lines per write, or a line in several writes).
class PerfMapScanner {
public:
  // Adds what was written; true when a line it completes announces code the
  // list wants (a malformed line is wanted: the debugger's reader says why).
  bool add(std::string_view bytes, const jitsym_watch_list &list);

private:
  std::string partial_; // the unterminated line so far
};

// A jitdump's byte stream: its header, then records. A CODE_LOAD or CODE_MOVE
// is decided once its last byte is written (the debugger reads whole records
// only).
class JitdumpScanner {
public:
  // Reads the stream's first `end` bytes (`read(offset, size, out)`, false
  // when they cannot be read) to find where the record in progress at `end`
  // began: the scanner then goes on from `end`. Hops record headers only.
  // False when the stream cannot be followed (not a jitdump of this byte
  // order, or unreadable): every later add() is then wanted.
  using Reader = std::function<bool(uint64_t offset, size_t size, char *out)>;
  bool resumeAt(uint64_t end, const Reader &read);

  // Adds the next bytes of the stream; true when a record they complete
  // announces code the list wants.
  bool add(std::string_view bytes, const jitsym_watch_list &list);

private:
  bool decide(const jitsym_watch_list &list) const; // of the complete record_
  uint64_t position_ = 0;   // stream offset of the next byte
  uint64_t recordStart_ = 0; // of the header, then of each record
  uint64_t recordSize_ = 0;  // 0 until the size field is known
  bool inHeader_ = true;
  bool lost_ = false;
  std::string record_; // the record's first bytes, up to kKeptBytes
  static constexpr size_t kKeptBytes = 64 + 4096; // fixed part and name
};

} // namespace jitsym
