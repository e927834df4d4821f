#include "RecordFile.h"

#include "jitsym-writer.h"
#include "jitsym/writer/DebuggerHook.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

namespace jitsym::writer {
namespace {

// The bytes in the run of all-zero blocks of `code` that starts at `at`.
size_t zeroRunAt(std::string_view code, size_t at) {
  static const char zeros[RecordFile::kZeroBlockBytes] = {};
  size_t run = 0;
  while (at + run < code.size()) {
    const size_t block = std::min(sizeof zeros, code.size() - at - run);
    if (std::memcmp(code.data() + at + run, zeros, block) != 0)
      break;
    run += block;
  }
  return run;
}

} // namespace

bool RecordFile::open(const std::string &path, Mode mode, std::string &error,
                      bool (*stale)(int fd)) {
  close();
  // O_NOFOLLOW: in /tmp, a link planted there is refused, not written through.
  // Readable: the jitdump's first page is mapped, and a forked child copies.
  // Not O_TRUNC: a file of another user is refused before anything in it changes.
  const int flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC |
                    (mode == Mode::Append ? O_APPEND : 0);
  const int fd = ::open(path.c_str(), flags, 0644);
  auto failed = [&](const char *what, int code) {
    error = std::string(what) + " " + path + ": " + std::strerror(code);
    if (fd >= 0)
      ::close(fd);
    errno = code;
    return false;
  };
  if (fd < 0)
    return failed("cannot create", errno);
  struct stat status {};
  if (::fstat(fd, &status) != 0)
    return failed("cannot create", errno);
  if (status.st_uid != ::geteuid()) // planted by another user: not ours to extend
    return failed("refusing to write, owned by another user:", EACCES);
  const bool replace = mode == Mode::Positioned || (stale && status.st_size > 0 && stale(fd));
  if (replace && status.st_size > 0 && ::ftruncate(fd, 0) != 0)
    return failed("cannot empty", errno);
  fd_ = fd;
  mode_ = mode;
  path_ = path;
  end_ = mode == Mode::Positioned ? 0 : static_cast<uint64_t>(::lseek(fd, 0, SEEK_END));
  failure_ = 0;
  return true;
}

int RecordFile::result() const {
  if (failure_ == 0)
    return JITSYM_OK;
  errno = failure_;
  return JITSYM_ERR_WRITE;
}

void RecordFile::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  held_.clear();
}

int RecordFile::release() {
  const int fd = fd_;
  fd_ = -1;
  held_.clear();
  return fd;
}

void RecordFile::commit() {
  if (!holding_ || held_.size() >= kHeldBytes)
    flush();
}

void RecordFile::flush() {
  if (held_.empty())
    return;
  writeParts(held_, {});
  held_.clear(); // its capacity is kept for the next records
  if (std::exchange(announce_, false))
    codeAnnounced();
}

void RecordFile::setHolding(bool holding) {
  holding_ = holding;
  if (holding)
    held_.reserve(2 * kHeldBytes); // no copies while it grows
  else
    flush();
}

void RecordFile::writeParts(std::string_view first, std::string_view second) {
  iovec parts[2] = {{const_cast<char *>(first.data()), first.size()},
                    {const_cast<char *>(second.data()), second.size()}};
  int next = 0;
  while (fd_ >= 0 && next < 2) {
    if (parts[next].iov_len == 0) {
      ++next;
      continue;
    }
    const ssize_t n = mode_ == Mode::Append
                          ? ::writev(fd_, parts + next, 2 - next)
                          : ::pwritev(fd_, parts + next, 2 - next, static_cast<off_t>(end_));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fail(n < 0 ? errno : EIO);
    end_ += static_cast<uint64_t>(n);
    for (auto done = static_cast<size_t>(n); next < 2 && done > 0; ++next) {
      const size_t taken = std::min(done, parts[next].iov_len);
      parts[next].iov_base = static_cast<char *>(parts[next].iov_base) + taken;
      parts[next].iov_len -= taken;
      done -= taken;
      if (parts[next].iov_len > 0)
        break; // a short write inside this part: go on from there
    }
  }
}

void RecordFile::writeWithCode(std::string_view code) {
  std::string_view header = held_;
  size_t written = 0; // code bytes before this are in the file, or skipped
  if (mode_ == Mode::Positioned) {
    for (size_t at = 0; at + kHoleBytes <= code.size();) { // where a hole could start
      const size_t zeros = zeroRunAt(code, at);
      if (zeros < kHoleBytes) {
        at += zeros + kZeroBlockBytes; // past the block that is not all zeros
        continue;
      }
      writeParts(header, code.substr(written, at - written));
      header = {};
      skip(zeros);
      at += zeros;
      written = at;
    }
  }
  if (written < code.size() || !header.empty())
    writeParts(header, code.substr(written));
  held_.clear();
  if (std::exchange(announce_, false))
    codeAnnounced();
}

void RecordFile::copyFrom(int fd, uint64_t begin, uint64_t end) {
  char buffer[64 << 10];
  while (fd_ >= 0 && begin < end) {
    const ssize_t n = ::pread(fd, buffer, std::min<uint64_t>(sizeof buffer, end - begin),
                              static_cast<off_t>(begin));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return; // the parent's file is shorter than it was: copy what there is
    write({buffer, static_cast<size_t>(n)});
    begin += static_cast<uint64_t>(n);
  }
}

void RecordFile::skip(uint64_t bytes) {
  if (fd_ < 0)
    return;
  // The file's size moves now, so that a record ending in a hole is whole.
  if (::ftruncate(fd_, static_cast<off_t>(end_ + bytes)) != 0)
    return fail(errno);
  end_ += bytes;
}

void RecordFile::fail(int error) {
  // A partial record at the end is what readers already expect of a writer
  // that stopped: they wait for the rest and read nothing wrong.
  ::close(fd_);
  fd_ = -1;
  failure_ = error;
}

} // namespace jitsym::writer
