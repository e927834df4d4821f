// Incremental reading of a perf jitdump file that its runtime is still writing.
// Each read() takes the records appended since the previous one, up to the size
// the file had when the read began; a record cut off at the end stays pending
// until it is complete. Code bytes are never needed, so a CODE_LOAD whose code
// runs past the read buffer is skipped over, not read. A rewritten or replaced
// file is detected (AppendedFile.h) and read again from the start.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jitsym/AppendedFile.h"
#include "jitsym/Diagnostic.h"
#include "jitsym/Interrupt.h"
#include "jitsym/JitdumpParser.h"
#include "llvm/Support/Error.h"

namespace jitsym {

class JitdumpSink {
public:
  virtual ~JitdumpSink() = default;
  virtual void onRewrite() = 0; // forget what was read
  virtual void onHeader(const JitdumpHeader &header) {}
  // `offset`: the record's byte offset in the file. The record's strings are
  // valid during the call only.
  virtual void onRecord(const JitdumpRecord &record, uint64_t offset) = 0;
  virtual void onDiagnostic(const Diagnostic &diagnostic) = 0;
};

struct JitdumpReadStats {
  bool rewritten = false;    // content was replaced: consumer must start over
  uint64_t bytesRead = 0;    // complete records consumed
  uint64_t records = 0;
  uint64_t malformed = 0;    // records skipped with a diagnostic
  uint64_t pendingBytes = 0; // an incomplete last record, or an unfinished header
  bool corrupt = false;      // a record size made the rest unreadable
  bool interrupted = false;  // stopped early; the next read goes on from there
};

class JitdumpReader {
public:
  JitdumpReader(std::string path, TrustPolicy trust = {});

  // Reads what is new. Errors are reserved for an unusable file (missing, not a
  // regular file, a symlink, untrusted owner, not a jitdump, an unsupported
  // version); a bad record is a diagnostic naming its byte offset.
  //
  // `unflushed`: bytes the runtime has written after the file's current end but
  // that are still in its stdio buffer (runtimes write jitdumps through a
  // buffered FILE, so the newest code is often not in the file yet). They are
  // read as if appended; when they reach the file later they are not read again.
  // `interrupt` is asked before each 4 MiB window.
  llvm::Expected<JitdumpReadStats> read(JitdumpSink &sink, std::string_view unflushed = {},
                                        const InterruptCheck &interrupt = {});

  const std::string &path() const { return file_.path(); }
  const std::optional<JitdumpHeader> &header() const { return header_; }
  uint64_t offset() const { return offset_; }

private:
  // Copies bytes [at, at + size) of the file followed by `unflushed` (which
  // starts at `fileSize`); false when the file no longer has them.
  bool readBytes(int fd, uint64_t fileSize, std::string_view unflushed, uint64_t at,
                 uint64_t size, std::string &out) const;

  AppendedFile file_;
  std::optional<JitdumpHeader> header_;
  uint64_t offset_ = 0;  // the next record (0 until the header is read); may lie
                         // past the file's end when unflushed bytes were read
  uint64_t fileConsumed_ = 0; // the part of offset_ inside the file
  bool corrupt_ = false; // nothing after offset_ can be read
};

// Whether `bytes` (the start of a file) look like a jitdump, in either byte order.
bool looksLikeJitdump(std::string_view bytes);

} // namespace jitsym
