// File I/O for perf maps: read the appended bytes in large chunks and hand
// complete lines to the parser.
#include "jitsym/files/PerfMapReader.h"

#include "jitsym/base/Parallel.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jitsym {
namespace {

constexpr size_t kChunkBytes = 4u << 20;
// Below this, a second thread costs more than it saves.
constexpr uint64_t kParallelReadBytes = 8u << 20;

// A rewritten map holds nothing yet while its first line is unfinished: the
// names read from the old content stay until the new content names code.
bool noLineYet(int fd, uint64_t size) {
  if (size > PerfMapReader::kMaxLineBytes)
    return false;
  std::string start;
  return size == 0 || (preadExact(fd, 0, static_cast<size_t>(size), start) &&
                       start.find('\n') == std::string::npos);
}

} // namespace

char *PerfMapSink::beginRead(uint64_t bytes) {
  buffer_.resize(static_cast<size_t>(bytes));
  return buffer_.data();
}

void PerfMapSink::endRead(uint64_t) { buffer_ = BigArray<char>(); }

struct PerfMapReader::Part {
  uint64_t bytes = 0;        // complete lines consumed
  uint64_t lines = 0;
  uint64_t entries = 0;
  uint64_t malformed = 0;
  uint64_t pendingBytes = 0; // an unterminated last line
  bool interrupted = false;
  std::string error;         // a failed read
};

PerfMapReader::PerfMapReader(std::string path, TrustPolicy trust)
    : file_(std::move(path), trust) {}

llvm::Expected<ReadStats> PerfMapReader::read(PerfMapSink &sink, const InterruptCheck &interrupt) {
  llvm::Expected<ReadStats> stats = readOnce(sink, interrupt);
  // Rewritten while the new bytes were read (truncated, then written from
  // the start again past where the last read ended): those bytes belong to
  // the new content, not after the old. Read it all again, once. Bytes with
  // no whole line among them named nothing: the next read finds the rewrite.
  // New content with no whole line yet counts as emptied (the names stay):
  // the next read, past the end of the file now, starts over.
  if (stats && stats->rewrittenDuringRead && stats->bytesRead > 0 && holdsNoLineNow()) {
    stats->emptied = true;
    stats->pendingBytes = 0;
  } else if (stats && stats->rewrittenDuringRead && stats->bytesRead > 0) {
    sink.onRewrite();
    offset_ = 0;
    nextLine_ = 1;
    stats = readOnce(sink, interrupt);
    if (stats)
      stats->rewritten = true;
  } else if (stats && stats->rewrittenDuringRead) {
    stats->pendingBytes = 0; // the new content's start, not the old line's end
  }
  return stats;
}

bool PerfMapReader::holdsNoLineNow() const {
  const int fd = ::open(file_.path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return false; // the next read says what is wrong
  struct stat st;
  const bool none = ::fstat(fd, &st) == 0 && noLineYet(fd, static_cast<uint64_t>(st.st_size));
  ::close(fd);
  return none;
}

llvm::Expected<ReadStats> PerfMapReader::readOnce(PerfMapSink &sink,
                                                  const InterruptCheck &interrupt) {
  llvm::Expected<AppendedFile::Opened> opened = file_.open(offset_, noLineYet);
  if (!opened)
    return opened.takeError();
  const int fd = opened->fd;
  ReadStats stats;
  if (opened->emptied) {
    stats.emptied = true;
    return stats;
  }
  if (opened->replaced) {
    stats.rewritten = true;
    offset_ = 0;
    nextLine_ = 1;
    sink.onRewrite();
  }

  // A large read is split at a line boundary into two parts parsed at once.
  const uint64_t size = opened->size;
  const uint64_t newBytes = size - std::min(size, offset_);
  Part first, second;
  bool twoParts = false;
  if (newBytes > 0) {
    std::unique_ptr<PerfMapSink> partSink;
    uint64_t split = 0;
    if (newBytes >= kParallelReadBytes) {
      split = lineBoundaryNear(fd, offset_ + newBytes / 2, size);
      if (split != 0)
        partSink = sink.makePartSink();
    }
    sink.onSizeHint(partSink ? split - offset_ : newBytes);
    char *buffer = sink.beginRead(newBytes);
    if (partSink) {
      partSink->onSizeHint(size - split);
      runBoth(
          [&] { first = readPart(fd, offset_, split, buffer, nextLine_, sink, interrupt); },
          [&] {
            second = readPart(fd, split, size, buffer + (split - offset_), 1, *partSink, interrupt);
          });
      // The second part follows only a first part read whole: a file that shrank
      // meanwhile is found rewritten at the next read.
      twoParts = first.error.empty() && second.error.empty() && first.pendingBytes == 0 &&
                 first.bytes == split - offset_;
      if (twoParts)
        sink.appendPart(*partSink, nextLine_ - 1 + first.lines); // lines before it in the file
      else
        second = Part{0, 0, 0, 0, 0, false, second.error};
    } else {
      first = readPart(fd, offset_, size, buffer, nextLine_, sink, interrupt);
    }
    sink.endRead(newBytes - first.bytes - second.bytes);
  }
  for (const Part *part : {&first, &second}) {
    if (!part->error.empty())
      return file_.error(part->error);
    stats.entries += part->entries;
    stats.malformed += part->malformed;
    stats.bytesRead += part->bytes;
    offset_ += part->bytes;
    nextLine_ += part->lines;
  }
  stats.pendingBytes = (twoParts ? second : first).pendingBytes;
  stats.interrupted = first.interrupted || (twoParts && second.interrupted);
  if (newBytes > 0 && !stats.rewritten && !file_.stillHolds(fd)) {
    stats.rewrittenDuringRead = true;
    return stats;
  }
  file_.remember(fd, offset_);
  return stats;
}

llvm::Error PerfMapReader::skipEarlierProgram(uint64_t bytes) {
  llvm::Expected<AppendedFile::Opened> opened = file_.open(offset_);
  if (!opened)
    return opened.takeError();
  const uint64_t end = std::min(bytes, opened->size);
  uint64_t lines = 0, lastLineEnd = 0;
  std::string chunk;
  for (uint64_t at = 0; at < end; at += chunk.size()) {
    if (!preadExact(opened->fd, at, static_cast<size_t>(std::min<uint64_t>(kChunkBytes, end - at)),
                    chunk))
      return file_.error("cannot read the lines of an earlier program");
    for (size_t i = 0; i < chunk.size(); ++i)
      if (chunk[i] == '\n') {
        ++lines;
        lastLineEnd = at + i + 1;
      }
  }
  offset_ = lastLineEnd;
  nextLine_ = lines + 1;
  file_.remember(opened->fd, offset_);
  return llvm::Error::success();
}

// Reads [begin, end) into `into` chunk by chunk and parses the complete lines
// as they arrive; an incomplete line at the end stays pending. Diagnostics are
// numbered from `firstLine`.
PerfMapReader::Part PerfMapReader::readPart(int fd, uint64_t begin, uint64_t end, char *into,
                                            uint64_t firstLine, PerfMapSink &sink,
                                            const InterruptCheck &interrupt) const {
  Part part;
  uint64_t filled = 0, parsed = 0;
  while (begin + filled < end) {
    if (filled > 0 && interruptRequested(interrupt)) {
      part.interrupted = true;
      break;
    }
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunkBytes, end - begin - filled));
    ssize_t n;
    do
      n = ::pread(fd, into + filled, want, static_cast<off_t>(begin + filled));
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      part.error = std::strerror(errno);
      break;
    }
    if (n == 0)
      break; // the file shrank since it was stat'ed
    const char *arrived = into + filled;
    filled += static_cast<uint64_t>(n);
    // Parse once a line ends, so one huge line is not rescanned chunk by chunk.
    if (!::memrchr(arrived, '\n', static_cast<size_t>(n)))
      continue;
    PerfMapChunkResult chunk = parsePerfMapChunk(
        std::string_view(into + parsed, filled - parsed), firstLine + part.lines,
        [&](const PerfMapEntry &entry) {
          ++part.entries;
          sink.onEntry(entry);
        },
        [&](uint64_t line, std::string message) {
          ++part.malformed;
          sink.onDiagnostic({file_.path(), line, std::move(message)});
        });
    part.lines += chunk.linesConsumed;
    parsed += chunk.bytesConsumed;
  }
  // No perf map line is a megabyte long: this one is junk, or a writer that
  // never ends it. Skipped, so it is neither held nor read again at every sync.
  if (filled - parsed > kMaxLineBytes && !part.interrupted) {
    ++part.malformed;
    sink.onDiagnostic({file_.path(), firstLine + part.lines,
                       "over " + std::to_string(kMaxLineBytes >> 20) +
                           " MiB with no newline; skipped (a perf map line is one symbol)"});
    ++part.lines;
    parsed = filled;
  }
  part.bytes = parsed;
  part.pendingBytes = filled - parsed;
  return part;
}

// The offset just after the first newline at or after `middle`, or 0 if there
// is none before `end`.
uint64_t PerfMapReader::lineBoundaryNear(int fd, uint64_t middle, uint64_t end) const {
  std::string window;
  for (uint64_t at = middle; at < end;) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(64 << 10, end - at));
    if (!preadExact(fd, at, want, window))
      return 0;
    if (const void *nl = std::memchr(window.data(), '\n', window.size()))
      return at + (static_cast<const char *>(nl) - window.data()) + 1;
    at += want;
  }
  return 0;
}


} // namespace jitsym
