// V8's damaged jitdump file names restored from the code's own name.
#include "jitsym/formats/V8Repairs.h"

#include <algorithm>

namespace jitsym {
namespace {

bool garbled(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

} // namespace

bool hasBytecodeOffsetsForLines(std::string_view codeName) {
  return codeName.substr(0, 4) == "JS:^";
}

std::optional<std::string> repairedFileName(std::string_view file, std::string_view codeName) {
  if (!garbled(file))
    return std::string(file);
  // V8 names the code and its lines after the same script: the path in the
  // name ("JS:*f /a/app.js:3:7") is the intact copy if its length is the same.
  std::string_view path = codeName.substr(codeName.rfind(' ') + 1);
  for (int field = 0; field < 2; ++field) { // drop ":column", then ":line"
    const size_t colon = path.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == path.size() ||
        !std::all_of(path.begin() + colon + 1, path.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt; // not a "path:line:column" name
    path = path.substr(0, colon);
  }
  if (path.size() == file.size() && !garbled(path))
    return std::string(path);
  return std::nullopt;
}

void repairV8FileNames(std::vector<JitLineEntry> &entries, std::string_view codeName,
                       std::list<std::string> &names) {
  // Entries mostly share one name: looked at once per run of equal names, and
  // copied only when it was damaged (this runs for every code load with lines).
  std::string_view original, replacement;
  bool first = true, lost = false;
  for (JitLineEntry &entry : entries) {
    if (first || entry.file != original) {
      first = false;
      original = entry.file;
      replacement = original;
      lost = false;
      if (garbled(original)) {
        std::optional<std::string> repaired = repairedFileName(original, codeName);
        lost = !repaired;
        replacement = names.emplace_back(repaired.value_or(""));
      }
    }
    entry.file = replacement;
    if (lost)
      entry.line = 0; // a file name lost to V8: these addresses have no line
  }
}

} // namespace jitsym
