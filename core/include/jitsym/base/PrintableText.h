// A runtime's text (function names, source file names) as it may reach a
// terminal: a program names its code as it likes, and an ESC or BEL in a name
// that `bt` or `jitsym lookup` prints would recolour or retitle the user's
// terminal. Control characters are written as visible escapes: C0 and DEL as
// \x1b, C1 (U+0080 to U+009F, which terminals also obey) as \u009b; the rest
// stays as it is (backslashes too: "RegExp:ab+c(\d+)" reads as written).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace jitsym {

namespace printable_detail {
// Bytes [at, at + length) that are one control character, 0 when none starts there.
inline size_t controlAt(std::string_view text, size_t at) {
  const auto byte = static_cast<uint8_t>(text[at]);
  if (byte < 0x20 || byte == 0x7f)
    return 1;
  if (byte == 0xc2 && at + 1 < text.size()) { // UTF-8 of U+0080..U+009F
    const auto next = static_cast<uint8_t>(text[at + 1]);
    if (next >= 0x80 && next <= 0x9f)
      return 2;
  }
  return 0;
}
} // namespace printable_detail

inline bool hasControlCharacters(std::string_view text) {
  for (size_t at = 0; at < text.size(); ++at)
    if (printable_detail::controlAt(text, at))
      return true;
  return false;
}

inline std::string printableText(std::string_view text) {
  if (!hasControlCharacters(text))
    return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t at = 0; at < text.size();) {
    const size_t length = printable_detail::controlAt(text, at);
    if (length == 0) {
      out += text[at++];
      continue;
    }
    char escape[8];
    if (length == 1)
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<uint8_t>(text[at]));
    else
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<uint8_t>(text[at + 1]));
    out += escape;
    at += length;
  }
  return out;
}

} // namespace jitsym
