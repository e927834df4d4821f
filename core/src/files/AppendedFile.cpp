// Opening an appended-to file safely, and recognising a rewrite.
#include "jitsym/files/AppendedFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

namespace jitsym {
namespace {

constexpr size_t kFingerprintBytes = 64;
constexpr unsigned kInnerSamples = 6; // besides the first and the last bytes

} // namespace

std::string describeUser(uint32_t uid) {
  const std::string number = "uid " + std::to_string(uid);
  struct passwd entry, *found = nullptr;
  char buffer[1024];
  if (::getpwuid_r(uid, &entry, buffer, sizeof(buffer), &found) == 0 && found)
    return std::string(found->pw_name) + " (" + number + ")";
  return number;
}

bool preadExact(int fd, uint64_t offset, size_t size, std::string &out) {
  out.resize(size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, out.data() + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> bytesAt(const std::string &path, uint64_t offset, size_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::string bytes;
  const bool read = preadExact(fd, offset, size, bytes);
  ::close(fd);
  if (!read)
    return std::nullopt;
  return bytes;
}

AppendedFile::Opened::Opened(Opened &&other) noexcept
    : fd(other.fd), size(other.size), replaced(other.replaced), emptied(other.emptied) {
  other.fd = -1;
}

AppendedFile::Opened::~Opened() {
  if (fd >= 0)
    ::close(fd);
}

AppendedFile::AppendedFile(std::string path, TrustPolicy trust)
    : path_(std::move(path)), trust_(trust) {}

llvm::Error AppendedFile::error(const std::string &what) const {
  return llvm::createStringError(std::errc::invalid_argument, "%s: %s", path_.c_str(),
                                 what.c_str());
}

llvm::Expected<AppendedFile::Opened> AppendedFile::open(uint64_t consumed,
                                                        NothingYet holdsNothingYet) {
  Opened opened;
  opened.fd = ::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (opened.fd < 0) {
    if (errno == ELOOP)
      return error("is a symbolic link; jitsym does not follow links in shared directories");
    return error(std::strerror(errno));
  }
  struct stat st;
  if (::fstat(opened.fd, &st) != 0)
    return error(std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return error("is not a regular file");
  if (trust_.expectedOwner && st.st_uid != *trust_.expectedOwner && st.st_uid != 0)
    return error("is owned by " + describeUser(st.st_uid) + ", not by " +
                 describeUser(*trust_.expectedOwner) + ", the target's user" +
                 (*trust_.expectedOwner != 0 ? ", or root" : "") +
                 "; not trusted (use --force to read it anyway)");
  opened.replaced = contentWasReplaced(opened.fd, st, consumed);
  if (opened.replaced && holdsNothingYet &&
      holdsNothingYet(opened.fd, static_cast<uint64_t>(st.st_size))) {
    opened.replaced = false;
    opened.emptied = true;
    return opened; // size 0: the identity and samples of what was read stay
  }
  if (opened.replaced)
    samples_.clear();
  device_ = st.st_dev;
  inode_ = st.st_ino;
  statSize_ = static_cast<uint64_t>(st.st_size);
  statTime_ = st.st_mtim;
  opened.size = statSize_;
  return opened;
}

bool AppendedFile::contentWasReplaced(int fd, const struct stat &st, uint64_t consumed) const {
  if (consumed == 0)
    return false;
  if (st.st_dev != device_ || st.st_ino != inode_)
    return true;
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < consumed)
    return true;
  if (size == statSize_ && (st.st_mtim.tv_sec != statTime_.tv_sec ||
                            st.st_mtim.tv_nsec != statTime_.tv_nsec))
    return true;
  return !stillHolds(fd);
}

bool AppendedFile::stillHolds(int fd) const {
  std::string bytes;
  for (const Sample &sample : samples_)
    if (!preadExact(fd, sample.offset, sample.bytes.size(), bytes) || bytes != sample.bytes)
      return false;
  return true;
}

// The first and last bytes, and bytes spread evenly between them, so a rewrite
// that keeps both ends is still caught.
void AppendedFile::remember(int fd, uint64_t consumed) {
  samples_.clear();
  const uint64_t length = std::min<uint64_t>(consumed, kFingerprintBytes);
  if (length == 0)
    return;
  const uint64_t last = consumed - length;
  std::optional<uint64_t> previous; // samples_ may lack it: see below
  for (unsigned k = 0; k <= kInnerSamples + 1; ++k) {
    const uint64_t at = last * k / (kInnerSamples + 1);
    if (previous == at)
      continue;
    previous = at;
    // A file truncated since it was read has fewer bytes than `consumed`: the
    // samples past its end are not taken (the next open sees it shrank).
    Sample sample{at, {}};
    if (preadExact(fd, at, static_cast<size_t>(length), sample.bytes))
      samples_.push_back(std::move(sample));
  }
}

} // namespace jitsym
