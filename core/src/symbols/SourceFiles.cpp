// Reads each named source file once (up to a bound) and keeps its line count.
#include "jitsym/symbols/SourceFiles.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jitsym {
namespace {

constexpr off_t kMaxSourceBytes = 64 << 20; // a larger file is taken on trust

std::optional<uint32_t> lineCountOf(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return std::nullopt;
  struct stat st;
  std::optional<uint32_t> count;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= kMaxSourceBytes) {
    std::string text(static_cast<size_t>(st.st_size), '\0');
    ssize_t got = ::pread(fd, text.data(), text.size(), 0);
    if (got == st.st_size)
      count = countLines(text);
  }
  ::close(fd);
  return count;
}

} // namespace

uint32_t countLines(std::string_view text) {
  uint32_t lines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
  return lines + (!text.empty() && text.back() != '\n' ? 1 : 0);
}

bool SourceFiles::lineCanExist(std::string_view file, uint32_t line) {
  if (file.empty() || file[0] != '/')
    return true;
  auto [it, added] = lineCounts_.try_emplace(std::string(file));
  if (added)
    it->second = lineCountOf(it->first);
  return !it->second || line <= *it->second;
}

} // namespace jitsym
