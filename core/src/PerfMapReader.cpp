// File I/O for perf maps: open without following links, check the owner, read the
// appended bytes in large chunks and hand complete lines to the parser.
#include "jitsym/PerfMapReader.h"

#include "jitsym/Parallel.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace jitsym {
namespace {

constexpr size_t kFingerprintBytes = 64;
constexpr unsigned kInnerSamples = 6; // besides the first and the last bytes
constexpr size_t kChunkBytes = 4u << 20;
// Below this, a second thread costs more than it saves.
constexpr uint64_t kParallelReadBytes = 8u << 20;

struct FileCloser {
  int fd;
  ~FileCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

llvm::Error fileError(const std::string &path, const std::string &what) {
  return llvm::createStringError(std::errc::invalid_argument, "%s: %s",
                                 path.c_str(), what.c_str());
}

bool preadExact(int fd, uint64_t offset, size_t size, std::string &out) {
  out.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out.data() + done, size - done, offset + done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

} // namespace

struct PerfMapReader::Part {
  uint64_t bytes = 0;        // complete lines consumed
  uint64_t lines = 0;
  uint64_t entries = 0;
  uint64_t malformed = 0;
  uint64_t pendingBytes = 0; // an unterminated last line
  std::string error;         // a failed read
};

PerfMapReader::PerfMapReader(std::string path, TrustPolicy trust)
    : path_(std::move(path)), trust_(trust) {}

// A runtime only ever appends. The content read so far was replaced when the
// file is another one, is shorter, was written to without growing (its
// modification time moved while its size stayed), or no longer holds the bytes
// sampled from it last time.
bool PerfMapReader::contentWasReplaced(int fd, const struct stat &st) {
  if (offset_ == 0)
    return false;
  if (st.st_dev != device_ || st.st_ino != inode_)
    return true;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < offset_)
    return true;
  if (size == statSize_ && (st.st_mtim.tv_sec != statTime_.tv_sec ||
                            st.st_mtim.tv_nsec != statTime_.tv_nsec))
    return true;
  std::string bytes;
  for (const Sample &sample : samples_)
    if (!preadExact(fd, sample.offset, sample.bytes.size(), bytes) || bytes != sample.bytes)
      return true;
  return false;
}

// Samples the consumed content: its first and last bytes, and bytes spread
// evenly between them, so a rewrite that keeps both ends is still caught.
void PerfMapReader::rememberFingerprint(int fd) {
  samples_.clear();
  const uint64_t length = std::min<uint64_t>(offset_, kFingerprintBytes);
  if (length == 0)
    return;
  const uint64_t last = offset_ - length;
  for (unsigned k = 0; k <= kInnerSamples + 1; ++k) {
    const uint64_t at = last * k / (kInnerSamples + 1);
    if (k > 0 && at == samples_.back().offset)
      continue;
    Sample sample{at, {}};
    if (preadExact(fd, at, static_cast<size_t>(length), sample.bytes))
      samples_.push_back(std::move(sample));
  }
}

llvm::Expected<ReadStats> PerfMapReader::read(PerfMapSink &sink) {
  int fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP)
      return fileError(path_, "is a symbolic link; jitsym does not follow links in shared directories");
    return fileError(path_, std::strerror(errno));
  }
  FileCloser closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fileError(path_, std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fileError(path_, "is not a regular file");
  if (trust_.expectedOwner && st.st_uid != *trust_.expectedOwner && st.st_uid != 0)
    return fileError(path_, "is owned by uid " + std::to_string(st.st_uid) +
                                ", not by the target's user (uid " +
                                std::to_string(*trust_.expectedOwner) +
                                ") or root; not trusted (use --force to read it anyway)");

  ReadStats stats;
  if (contentWasReplaced(fd, st)) {
    stats.rewritten = true;
    offset_ = 0;
    nextLine_ = 1;
    samples_.clear();
    sink.onRewrite();
  }
  device_ = st.st_dev;
  inode_ = st.st_ino;
  statSize_ = static_cast<uint64_t>(st.st_size);
  statTime_ = st.st_mtim;

  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > offset_)
    sink.onSizeHint(size - offset_);

  // A large read is split at a line boundary into two parts parsed at once;
  // the second part reads on to the end of the file, wherever that is by then.
  std::unique_ptr<PerfMapSink> partSink;
  uint64_t split = 0;
  if (size - std::min(size, offset_) >= kParallelReadBytes) {
    split = lineBoundaryNear(fd, offset_ + (size - offset_) / 2, size);
    if (split != 0)
      partSink = sink.makePartSink();
  }
  Part first, second;
  if (partSink) {
    partSink->onSizeHint(size - split);
    runBoth([&] { first = readPart(fd, offset_, split, nextLine_, sink); },
            [&] { second = readPart(fd, split, UINT64_MAX, 1, *partSink); });
    if (first.error.empty() && second.error.empty())
      sink.appendPart(*partSink, first.lines);
  } else {
    first = readPart(fd, offset_, UINT64_MAX, nextLine_, sink);
  }
  for (const Part *part : {&first, &second}) {
    if (!part->error.empty())
      return fileError(path_, part->error);
    stats.entries += part->entries;
    stats.malformed += part->malformed;
    stats.bytesRead += part->bytes;
    offset_ += part->bytes;
    nextLine_ += part->lines;
  }
  stats.pendingBytes = (partSink ? second : first).pendingBytes;
  rememberFingerprint(fd);
  return stats;
}

// Reads [begin, end) (or to the end of the file) chunk by chunk; an incomplete
// line at a chunk's end is carried into the next chunk, and at the end of the
// file it stays pending. Diagnostics are numbered from `firstLine`.
PerfMapReader::Part PerfMapReader::readPart(int fd, uint64_t begin, uint64_t end,
                                            uint64_t firstLine, PerfMapSink &sink) const {
  Part part;
  std::vector<char> buffer;
  std::string carry;
  uint64_t fileOffset = begin;
  while (fileOffset < end) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunkBytes, end - fileOffset));
    buffer.resize(carry.size() + want);
    std::memcpy(buffer.data(), carry.data(), carry.size());
    ssize_t n;
    do
      n = ::pread(fd, buffer.data() + carry.size(), want, fileOffset);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      part.error = std::strerror(errno);
      return part;
    }
    if (n == 0)
      break;
    fileOffset += static_cast<uint64_t>(n);
    std::string_view bytes(buffer.data(), carry.size() + static_cast<size_t>(n));
    PerfMapChunkResult chunk = parsePerfMapChunk(
        bytes, firstLine + part.lines,
        [&](const PerfMapEntry &entry) {
          ++part.entries;
          sink.onEntry(entry);
        },
        [&](uint64_t line, std::string message) {
          ++part.malformed;
          sink.onDiagnostic({path_, line, std::move(message)});
        });
    part.lines += chunk.linesConsumed;
    part.bytes += chunk.bytesConsumed;
    carry.assign(bytes.substr(chunk.bytesConsumed));
  }
  part.pendingBytes = carry.size();
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
