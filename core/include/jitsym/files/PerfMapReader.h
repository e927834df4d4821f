// Incremental reading of a perf map that its runtime is still appending to.
// Each read() takes only the bytes appended since the previous one (up to the
// size the file had when the read began); a file that was truncated or
// rewritten in place (HotSpot's `jcmd Compiler.perfmap`) or replaced by another
// file is detected (AppendedFile.h) and read again from the start.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "jitsym/files/AppendedFile.h"
#include "jitsym/symbols/BigArray.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/base/Interrupt.h"
#include "jitsym/formats/PerfMapParser.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct ReadStats {
  bool rewritten = false;       // content was replaced: consumer must start over
  bool emptied = false;         // the file was emptied to be written anew and holds
                                // no whole line yet: nothing read, what was read
                                // stays until it holds lines
  uint64_t bytesRead = 0;       // new complete-line bytes consumed
  uint64_t entries = 0;
  uint64_t malformed = 0;
  uint64_t pendingBytes = 0;    // an unterminated last line waiting for its newline
  bool interrupted = false;     // stopped early; the next read goes on from there
  // (PerfMapReader's own) the file was rewritten while this read took bytes
  // past the old end: they are the new content's, read again from the start
  bool rewrittenDuringRead = false;
};

class PerfMapSink {
public:
  virtual ~PerfMapSink() = default;
  virtual void onRewrite() = 0;                        // forget what was read
  virtual void onSizeHint(uint64_t newBytes) {}         // bytes of lines coming here
  virtual void onEntry(const PerfMapEntry &entry) = 0;
  virtual void onDiagnostic(const Diagnostic &diagnostic) = 0;

  // Where the reader puts the `bytes` new bytes of the file; entries' names
  // point into them. A sink that keeps names can hand out its own storage and
  // keep them without a copy. endRead() says how many bytes at the end of them
  // were not used (a half-written last line, what a shrinking file never
  // gave): the sink's to drop.
  virtual char *beginRead(uint64_t bytes);
  virtual void endRead(uint64_t unusedBytes);

  // A large read is parsed in two parts on two threads. The second part goes to
  // a sink made here (null: read on one thread), whose entries name bytes of
  // this sink's buffer, and is handed back, after the first part, with the
  // number of lines before it.
  virtual std::unique_ptr<PerfMapSink> makePartSink() { return nullptr; }
  virtual void appendPart(PerfMapSink &part, uint64_t linesBefore) {}

private:
  BigArray<char> buffer_; // the default read buffer
};

class PerfMapReader {
public:
  PerfMapReader(std::string path, TrustPolicy trust = {});

  // Reads what is new. Errors are reserved for an unusable file (missing, not a
  // regular file, a symlink, untrusted owner); a malformed line is a diagnostic,
  // and so is a line that runs past kMaxLineBytes with no newline (skipped, so
  // a file that never ends its line costs no more than its bytes once).
  // `interrupt` is asked between 4 MiB chunks.
  llvm::Expected<ReadStats> read(PerfMapSink &sink, const InterruptCheck &interrupt = {});

  static constexpr uint64_t kMaxLineBytes = 1u << 20;

  // Takes the complete lines in the file's first `bytes` bytes as read, without
  // announcing them: an earlier program with this PID wrote them (it exec'd,
  // or it ended and the PID was given again), and the process appends to its
  // map. Rewritten later, the file is read from the start as usual.
  llvm::Error skipEarlierProgram(uint64_t bytes);

  const std::string &path() const { return file_.path(); }
  uint64_t offset() const { return offset_; }
  uint64_t linesRead() const { return nextLine_ - 1; }

private:
  // One read of what is new, without the second try after a rewrite found
  // at its end.
  llvm::Expected<ReadStats> readOnce(PerfMapSink &sink, const InterruptCheck &interrupt);
  bool holdsNoLineNow() const; // (rewritten midway) the new content names nothing yet
  struct Part; // what reading one byte range yielded
  Part readPart(int fd, uint64_t begin, uint64_t end, char *into, uint64_t firstLine,
                PerfMapSink &sink, const InterruptCheck &interrupt) const;
  uint64_t lineBoundaryNear(int fd, uint64_t middle, uint64_t end) const;

  AppendedFile file_;
  uint64_t offset_ = 0;
  uint64_t nextLine_ = 1;
};

} // namespace jitsym
