// Stale perf maps: what an earlier process with the same PID left.
#include "jitsym/files/EarlierMap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitsym/files/AppendedFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

namespace jitsym {
namespace {

// A digest of the file's first `bytes` bytes; none if it has fewer. Past 2 MiB
// only the first and the last MiB count: enough to tell a rewrite.
std::optional<uint64_t> leadingBytesDigest(const std::string &path, uint64_t bytes) {
  constexpr uint64_t kPart = 1 << 20;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return std::nullopt;
  std::string content;
  auto readAt = [&](uint64_t offset, uint64_t size) {
    std::string part;
    if (!preadExact(fd, offset, static_cast<size_t>(size), part))
      return false;
    content += part;
    return true;
  };
  const bool read = bytes <= 2 * kPart ? readAt(0, bytes)
                                       : readAt(0, kPart) && readAt(bytes - kPart, kPart);
  ::close(fd);
  if (!read)
    return std::nullopt;
  return llvm::xxh3_64bits(llvm::arrayRefFromStringRef(content));
}

int64_t modifiedNs(const struct stat &st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

} // namespace

std::optional<EarlierMap> earlierMap(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  const uint64_t bytes = static_cast<uint64_t>(st.st_size);
  return EarlierMap{path, bytes, leadingBytesDigest(path, bytes).value_or(0), modifiedNs(st)};
}

bool stillBeginsWith(const EarlierMap &earlier) {
  struct stat st;
  if (::stat(earlier.path.c_str(), &st) != 0)
    return false;
  if (static_cast<uint64_t>(st.st_size) == earlier.bytes && modifiedNs(st) != earlier.modifiedNs)
    return false; // written since without growing: rewritten
  return leadingBytesDigest(earlier.path, earlier.bytes) == earlier.digest;
}

} // namespace jitsym
