// /proc/PID/maps parsing: "start-end perms offset dev inode path".
#include "jitsym/formats/MemoryMap.h"

#include <charconv>

namespace jitsym {
namespace {

bool parseHex(std::string_view text, uint64_t &value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return ec == std::errc() && ptr == text.data() + text.size();
}

std::string_view takeField(std::string_view &rest) {
  while (!rest.empty() && rest.front() == ' ')
    rest.remove_prefix(1);
  size_t end = rest.find(' ');
  std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.substr(text.size() - suffix.size()) == suffix;
}

} // namespace

bool Mapping::isFileBacked() const {
  if (path.empty() || path[0] != '/')
    return false;
  std::string_view p = path;
  if (p.rfind("/memfd:", 0) == 0 || endsWith(p, " (deleted)"))
    return false;
  return inode != 0;
}

bool Mapping::isSpecial() const {
  // Kernel-provided mappings, including newer kernels' [vvar_vclock] and
  // [uprobes] and the ARM [sigpage]/[vectors] pages.
  return path == "[stack]" || path == "[vdso]" || path == "[vvar]" || path == "[vvar_vclock]" ||
         path == "[vsyscall]" || path == "[uprobes]" || path == "[sigpage]" ||
         path == "[vectors]" || path.rfind("[stack:", 0) == 0;
}

std::vector<Mapping> parseMemoryMap(std::string_view text, const std::string &source,
                                    std::vector<Diagnostic> *diagnostics) {
  std::vector<Mapping> mappings;
  uint64_t lineNumber = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++lineNumber;
    if (line.empty())
      continue;
    std::string_view rest = line;
    std::string_view range = takeField(rest);
    std::string_view perms = takeField(rest);
    std::string_view offset = takeField(rest);
    takeField(rest); // device
    std::string_view inode = takeField(rest);
    while (!rest.empty() && rest.front() == ' ')
      rest.remove_prefix(1);
    Mapping m;
    size_t dash = range.find('-');
    uint64_t inodeValue = 0;
    bool ok = dash != std::string_view::npos && perms.size() >= 4 &&
              parseHex(range.substr(0, dash), m.start) &&
              parseHex(range.substr(dash + 1), m.end) && m.start < m.end &&
              parseHex(offset, m.offset);
    if (ok) {
      auto [ptr, ec] = std::from_chars(inode.data(), inode.data() + inode.size(), inodeValue);
      ok = ec == std::errc() && ptr == inode.data() + inode.size();
    }
    if (!ok) {
      if (diagnostics)
        diagnostics->push_back({source, lineNumber, "malformed memory map line"});
      continue;
    }
    m.read = perms[0] == 'r';
    m.write = perms[1] == 'w';
    m.execute = perms[2] == 'x';
    m.shared = perms[3] == 's';
    m.inode = inodeValue;
    m.path = std::string(rest);
    mappings.push_back(std::move(m));
  }
  return mappings;
}

} // namespace jitsym
