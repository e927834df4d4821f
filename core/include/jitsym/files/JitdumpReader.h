// Incremental reading of a perf jitdump file that its runtime is still writing.
// Each read() takes the records appended since the previous one, up to the size
// the file had when the read began; a record cut off at the end stays pending
// until it is complete. Code bytes are never needed, so a CODE_LOAD whose code
// runs past the read buffer is skipped over, not read. A rewritten or replaced
// file is detected (AppendedFile.h) and read again from the start.
//
// Bytes still in the runtime's stdio buffer are provisional. Runtimes write
// jitdumps through a buffered FILE, so at a stop the newest records are often
// only in the process; they name code at this stop, but they are not the file:
// glibc may already have written them (a stop between its write(2) of a full
// buffer and the reset of _IO_write_ptr), the FILE found may not be the one
// that writes at the file's end, or the process may hold anything at all. So
// the file alone moves the reader: its offset never enters buffered bytes, a
// bad parse of them is no diagnostic and never makes the file corrupt, and what
// the file later holds at their offsets decides whether what they named stays.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "jitsym/files/AppendedFile.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/base/Interrupt.h"
#include "jitsym/formats/JitdumpParser.h"
#include "jitsym/formats/JitdumpSink.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct JitdumpReadStats {
  bool rewritten = false;    // content was replaced: consumer must start over
  uint64_t bytesRead = 0;    // complete records consumed
  uint64_t records = 0;
  uint64_t malformed = 0;    // records skipped with a diagnostic
  uint64_t stepsLost = 0;    // places where a record's size led off the records, found again
  uint64_t bytesSkipped = 0; // by those: bytes that were no record (a size too small)
  uint64_t pendingBytes = 0; // an incomplete last record, or an unfinished header
  bool corrupt = false;      // no record could be found after a bad one: the rest is unread
  bool interrupted = false;  // stopped early; the next read goes on from there
  // What became of the bytes given as still buffered (`unflushed`):
  uint64_t provisionalRecords = 0; // complete records in them, given provisionally
  uint64_t provisionalBytes = 0;   // of them, the bytes those records took
  bool unflushedInFile = false;    // they are the file's last bytes: already written
  bool unflushedUnreadable = false; // they did not continue the file as records
};

class JitdumpReader {
public:
  JitdumpReader(std::string path, TrustPolicy trust = {});

  // Reads what is new. Errors are reserved for an unusable file (missing, not a
  // regular file, a symlink, untrusted owner, not a jitdump, an unsupported
  // version); a bad record is a diagnostic naming its byte offset.
  //
  // `unflushed`: bytes the runtime's stdio buffer holds for the file's end. They
  // are provisional (see the top of this file): read after the file's records,
  // given to the sink as such, remembered until the file confirms or
  // contradicts them. When they equal the file's last bytes they were written
  // already and are ignored. `interrupt` is asked before each 4 MiB window.
  llvm::Expected<JitdumpReadStats> read(JitdumpSink &sink, std::string_view unflushed = {},
                                        const InterruptCheck &interrupt = {});

  // The file's writer is gone (an offline read): what waits for bytes after
  // it is read as it is (a record whose size is in doubt, a skipped record
  // at the end), and a search for the next record that reaches the end gives
  // up there. Before, such places wait for the next read.
  void setWriterDone(bool done) { writerDone_ = done; }

  const std::string &path() const { return file_.path(); }
  const std::optional<JitdumpHeader> &header() const { return header_; }
  uint64_t offset() const { return offset_; }

  // Where reading lost its step and how it went on, over every read so far.
  struct Damage {
    uint64_t stepsLost = 0;    // bad places read past
    uint64_t bytesSkipped = 0; // bytes that held no record
    // Reading lost its step here and has not found the next record yet (it
    // looks again as the file grows), or, when `corrupt`, never will.
    std::optional<uint64_t> lostAt;
    bool corrupt = false;
  };
  Damage damage() const;

private:
  // A record given provisionally: where it is to be and its bytes (at most its
  // first kMaxRemembered, enough to tell it from any other record).
  struct Provisional {
    uint64_t offset;
    uint64_t size;
    std::string bytes;
  };

  // Gives the file's record at `at` (nullptr: a malformed one; `bytes`: its
  // first bytes) to the sink, settling the provisional records up to it.
  void fileRecord(JitdumpSink &sink, const JitdumpRecord *record, uint64_t at,
                  std::string_view bytes);
  // Withdraws the provisional records that start before `end`.
  void withdrawBefore(JitdumpSink &sink, uint64_t end);
  void readProvisional(JitdumpSink &sink, int fd, uint64_t fileSize,
                       std::string_view unflushed, bool tailInDoubt, JitdumpReadStats &stats);

  struct Walk; // one read's walk over the file's records (JitdumpReader.cpp)

  // Reading lost its step at `at` (said in `problem`) and looks for the next
  // record from offset_ on.
  struct LostStep {
    uint64_t at;
    std::string problem; // said with the outcome: found again, or given up
  };

  AppendedFile file_;
  std::optional<JitdumpHeader> header_;
  uint64_t offset_ = 0;  // the next record in the file (0 until the header is read)
  bool corrupt_ = false; // nothing after offset_ can be read
  std::optional<LostStep> lostStep_;
  bool writerDone_ = false;
  uint64_t stepsLost_ = 0, bytesSkipped_ = 0;
  std::deque<Provisional> provisional_; // given provisionally and not settled, by offset
};

// Whether `bytes` (the start of a file) look like a jitdump, in either byte order.
bool looksLikeJitdump(std::string_view bytes);

} // namespace jitsym
