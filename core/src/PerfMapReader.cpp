// File I/O for perf maps: open without following links, check the owner, read the
// appended bytes in large chunks and hand complete lines to the parser.
#include "jitsym/PerfMapReader.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace jitsym {
namespace {

constexpr size_t kFingerprintBytes = 64;
constexpr size_t kChunkBytes = 4u << 20;

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

PerfMapReader::PerfMapReader(std::string path, TrustPolicy trust)
    : path_(std::move(path)), trust_(trust) {}

bool PerfMapReader::contentWasReplaced(int fd, const struct stat &st) {
  if (offset_ == 0)
    return false;
  if (st.st_dev != device_ || st.st_ino != inode_)
    return true;
  if (static_cast<uint64_t>(st.st_size) < offset_)
    return true;
  std::string bytes;
  if (!preadExact(fd, 0, head_.size(), bytes) || bytes != head_)
    return true;
  if (!preadExact(fd, offset_ - tail_.size(), tail_.size(), bytes) || bytes != tail_)
    return true;
  return false;
}

void PerfMapReader::rememberFingerprint(int fd) {
  size_t headSize = std::min<uint64_t>(offset_, kFingerprintBytes);
  size_t tailSize = std::min<uint64_t>(offset_, kFingerprintBytes);
  if (head_.size() < headSize)
    preadExact(fd, 0, headSize, head_);
  preadExact(fd, offset_ - tailSize, tailSize, tail_);
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
    head_.clear();
    tail_.clear();
    sink.onRewrite();
  }
  device_ = st.st_dev;
  inode_ = st.st_ino;

  if (static_cast<uint64_t>(st.st_size) > offset_)
    sink.onSizeHint(static_cast<uint64_t>(st.st_size) - offset_);

  // Read appended bytes chunk by chunk; an incomplete line at a chunk's end is
  // carried into the next chunk, and at the end of the file it stays pending.
  std::vector<char> buffer;
  std::string carry;
  uint64_t fileOffset = offset_;
  for (;;) {
    buffer.resize(carry.size() + kChunkBytes);
    std::memcpy(buffer.data(), carry.data(), carry.size());
    ssize_t n;
    do
      n = ::pread(fd, buffer.data() + carry.size(), kChunkBytes, fileOffset);
    while (n < 0 && errno == EINTR);
    if (n < 0)
      return fileError(path_, std::strerror(errno));
    if (n == 0)
      break;
    fileOffset += static_cast<uint64_t>(n);
    std::string_view bytes(buffer.data(), carry.size() + static_cast<size_t>(n));
    PerfMapChunkResult chunk = parsePerfMapChunk(
        bytes, nextLine_,
        [&](const PerfMapEntry &entry) {
          ++stats.entries;
          sink.onEntry(entry);
        },
        [&](uint64_t line, std::string message) {
          ++stats.malformed;
          sink.onDiagnostic({path_, line, std::move(message)});
        });
    nextLine_ += chunk.linesConsumed;
    offset_ += chunk.bytesConsumed;
    stats.bytesRead += chunk.bytesConsumed;
    carry.assign(bytes.substr(chunk.bytesConsumed));
  }
  stats.pendingBytes = carry.size();
  rememberFingerprint(fd);
  return stats;
}

} // namespace jitsym
