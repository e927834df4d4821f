// libFuzzer target: the text of a printf call the compile watch makes from a
// format and arguments read out of the debugged process (PrintfFormat.h), both
// whatever that process holds.
//
// Input: the format, a NUL, then the arguments, 8 bytes each (little-endian);
// a missing argument cannot be read. A %s argument names string number
// (value % 4) of a small table, or none (unreadable) when its value is 4 mod 5.
// Checked invariants:
//  - the text is at most maxBytes long, or there is none;
//  - a format with no '%' is its own text, whatever the arguments;
//  - an unreadable argument or string gives no text, never a guess: the text
//    made with every argument readable is a prefix-free superset, so only the
//    readable run may have one;
//  - "%%" alone makes "%", and "%c" with 'A' makes "A".
#include "jitsym/formats/PrintfFormat.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {

const char *const kStrings[] = {"", "leaf", "Busy:Leaf (int)", "/tmp/perf-1.map"};

std::optional<std::string> readString(uint64_t value) {
  if (value % 5 == 4)
    return std::nullopt;
  return std::string(kStrings[value % 4]);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view format = input.substr(0, nul);
  std::vector<uint64_t> arguments;
  if (nul != std::string_view::npos)
    for (size_t at = nul + 1; at + 8 <= input.size(); at += 8) {
      uint64_t value = 0;
      std::memcpy(&value, input.data() + at, 8);
      arguments.push_back(value);
    }
  auto argument = [&](size_t i) -> std::optional<uint64_t> {
    if (i < arguments.size())
      return arguments[i];
    return std::nullopt;
  };
  const size_t maxBytes = 1 + (arguments.empty() ? 4096 : arguments[0] % 4096);
  std::optional<std::string> text = formatPrintf(format, argument, readString, maxBytes);
  if (text)
    CHECK(text->size() <= maxBytes);
  if (format.find('%') == std::string_view::npos && format.size() <= maxBytes) {
    CHECK(text.has_value());
    CHECK(*text == format);
  }
  // With every argument readable (zeros past the input's), a text made with
  // some unreadable must be made the same.
  auto always = [&](size_t i) -> std::optional<uint64_t> {
    return i < arguments.size() ? arguments[i] : 0;
  };
  auto everyString = [](uint64_t value) -> std::optional<std::string> {
    return std::string(kStrings[value % 4]);
  };
  if (text) {
    std::optional<std::string> whole = formatPrintf(format, always, everyString, maxBytes);
    CHECK(whole.has_value());
    CHECK(*whole == *text);
  }
  CHECK(formatPrintf("%%", argument, readString) == std::optional<std::string>("%"));
  CHECK(formatPrintf("%c", [](size_t) { return std::optional<uint64_t>('A'); }, readString) ==
        std::optional<std::string>("A"));
  return 0;
}
