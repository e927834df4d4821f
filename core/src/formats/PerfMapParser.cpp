// Perf map chunk parsing: memchr to find line ends, each line by PerfMapLine.
#include "jitsym/formats/PerfMapParser.h"

#include <cstring>

namespace jitsym {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

} // namespace

PerfMapChunkResult parsePerfMapChunk(
    std::string_view bytes, uint64_t firstLine,
    llvm::function_ref<void(const PerfMapEntry &)> onEntry,
    llvm::function_ref<void(uint64_t line, std::string message)> onError) {
  PerfMapChunkResult result;
  const char *data = bytes.data();
  size_t pos = 0;
  PerfMapEntry entry;
  std::string error;
  while (pos < bytes.size()) {
    const void *nl = std::memchr(data + pos, '\n', bytes.size() - pos);
    if (!nl)
      break; // half-written line: stays pending until its newline arrives
    size_t end = static_cast<const char *>(nl) - data;
    std::string_view line(data + pos, end - pos);
    uint64_t lineNumber = firstLine + result.linesConsumed;
    bool blank = (line.empty() || isBlank(line[0]) || line[0] == '\r') &&
                 line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (!blank) {
      if (parsePerfMapLine(line, entry, error))
        onEntry(entry);
      else
        onError(lineNumber, std::move(error));
    }
    ++result.linesConsumed;
    pos = end + 1;
  }
  result.bytesConsumed = pos;
  return result;
}

} // namespace jitsym
