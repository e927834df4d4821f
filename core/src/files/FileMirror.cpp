#include "jitsym/files/FileMirror.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace jitsym {
namespace {

llvm::Error localError(const std::string &path, const char *what) {
  return llvm::createStringError(std::error_code(errno, std::generic_category()), "%s: %s: %s",
                                 path.c_str(), what, std::strerror(errno));
}

bool writeAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

class Descriptor {
public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  int get() const { return fd_; }

private:
  int fd_;
};

} // namespace

FileMirror::FileMirror(std::unique_ptr<RemoteFile> original, std::string localPath)
    : original_(std::move(original)), localPath_(std::move(localPath)) {}

llvm::Error FileMirror::copyRange(int fd, uint64_t from, uint64_t to, uint64_t overlap,
                                  bool &overlapMatched, const Progress &progress) {
  overlapMatched = true;
  for (uint64_t at = from - overlap; at < to;) {
    const uint64_t count = std::min(kChunk, to - at);
    llvm::Expected<std::string> bytes = original_->read(at, count);
    if (!bytes)
      return llvm::createStringError(std::errc::io_error,
                                     "%s: cannot read bytes %llu..%llu: %s",
                                     name().c_str(), static_cast<unsigned long long>(at),
                                     static_cast<unsigned long long>(at + count),
                                     llvm::toString(bytes.takeError()).c_str());
    transferred_ += bytes->size();
    if (bytes->size() != count)
      return llvm::createStringError(std::errc::io_error,
                                     "%s: %llu bytes read at %llu, %llu asked for",
                                     name().c_str(), static_cast<unsigned long long>(bytes->size()),
                                     static_cast<unsigned long long>(at),
                                     static_cast<unsigned long long>(count));
    std::string_view fresh = *bytes;
    if (at < from) { // the overlap: bytes copied before, which must not have changed
      if (fresh.substr(0, overlap) != tail_) {
        overlapMatched = false;
        return llvm::Error::success();
      }
      fresh.remove_prefix(overlap);
    }
    if (!writeAll(fd, fresh))
      return localError(localPath_, "cannot write the copy");
    copied_ += fresh.size();
    tail_.append(fresh.substr(fresh.size() - std::min<size_t>(fresh.size(), kOverlap)));
    if (tail_.size() > kOverlap)
      tail_.erase(0, tail_.size() - kOverlap);
    at += count;
    if (progress)
      progress(at - (from - overlap), to - (from - overlap));
  }
  return llvm::Error::success();
}

llvm::Error FileMirror::recopy(uint64_t size, const Progress &progress) {
  // A new file renamed over the old one: a reader of the copy sees another
  // file and starts over, as it would for a local file that was replaced.
  const std::string fresh = localPath_ + ".new";
  ::unlink(fresh.c_str());
  Descriptor fd(::open(fresh.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0)
    return localError(fresh, "cannot create the copy");
  copied_ = 0;
  tail_.clear();
  bool matched = true;
  llvm::Error err = copyRange(fd.get(), 0, size, 0, matched, progress);
  if (!err && ::rename(fresh.c_str(), localPath_.c_str()) != 0)
    err = localError(localPath_, "cannot replace the copy");
  if (err) {
    ::unlink(fresh.c_str());
    copied_ = 0;
    tail_.clear();
  }
  return err;
}

llvm::Expected<MirrorUpdate> FileMirror::update(const Progress &progress) {
  llvm::Expected<uint64_t> size = original_->size();
  if (!size)
    return llvm::createStringError(std::errc::io_error, "%s: %s", name().c_str(),
                                   llvm::toString(size.takeError()).c_str());
  last_ = MirrorUpdate{copied_, copied_, false};
  // A file left at the copy's path by an earlier mirror is not this one's.
  const bool exists = copyMade_ && ::access(localPath_.c_str(), F_OK) == 0;
  if (exists && *size == copied_)
    return last_;
  if (exists && *size > copied_) {
    Descriptor fd(::open(localPath_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0)
      return localError(localPath_, "cannot open the copy");
    bool matched = true;
    if (llvm::Error err =
            copyRange(fd.get(), copied_, *size, tail_.size(), matched, progress))
      return err;
    if (matched) {
      last_.to = copied_;
      return last_;
    }
  }
  // First copy, or the original shrank or changed under the bytes copied.
  last_.replaced = exists;
  if (llvm::Error err = recopy(*size, progress))
    return err;
  copyMade_ = true;
  last_.from = 0;
  last_.to = copied_;
  return last_;
}

} // namespace jitsym
