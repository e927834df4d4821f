// One perf map line. Hot path for multi-million-line maps: no allocation on
// well-formed lines.
#include "jitsym/formats/PerfMapLine.h"

namespace jitsym {
namespace {

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// Hex digit values by byte; -1 for anything else.
constexpr struct HexTable {
  signed char value[256];
  constexpr HexTable() : value() {
    for (int c = 0; c < 256; ++c)
      value[c] = c >= '0' && c <= '9'   ? c - '0'
                 : c >= 'a' && c <= 'f' ? c - 'a' + 10
                 : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                        : -1;
  }
} kHex;

int hexDigit(char c) { return kHex.value[static_cast<unsigned char>(c)]; }

} // namespace

bool parseHexNumber(std::string_view field, uint64_t &value) {
  if (field.size() > 2 && field[0] == '0' && (field[1] == 'x' || field[1] == 'X'))
    field.remove_prefix(2);
  if (field.empty())
    return false;
  uint64_t v = 0;
  for (char c : field) {
    int d = hexDigit(c);
    if (d < 0 || (v >> 60) != 0)
      return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  value = v;
  return true;
}

namespace {

std::string_view nextField(std::string_view &rest) {
  size_t end = 0;
  while (end < rest.size() && !isBlank(rest[end]))
    ++end;
  std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end);
  return field;
}

void skipBlanks(std::string_view &rest) {
  while (!rest.empty() && isBlank(rest.front()))
    rest.remove_prefix(1);
}

std::string quoted(std::string_view field) {
  constexpr size_t kMaxShown = 40;
  std::string shown(field.substr(0, kMaxShown));
  if (field.size() > kMaxShown)
    shown += "...";
  return "'" + shown + "'";
}

// Reads hex digits (after an optional 0x) up to a blank; false when the field
// is anything else, so the careful parser can say what is wrong.
bool scanHexField(const char *&p, const char *end, uint64_t &value) {
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && !isBlank(p[2]))
    p += 2;
  const char *first = p;
  uint64_t v = 0;
  int d;
  while (p < end && (d = hexDigit(*p)) >= 0) {
    if (p - first == 16)
      return false;
    v = (v << 4) | static_cast<uint64_t>(d);
    ++p;
  }
  if (p == first || p == end || !isBlank(*p))
    return false;
  value = v;
  return true;
}

// The shape almost every line has, in one pass: "HEX HEX name" with no CR and
// no trailing blanks. Anything else goes to the careful parser below.
bool parseCommonLine(std::string_view line, PerfMapEntry &entry) {
  const char *p = line.data(), *end = p + line.size();
  if (p == end || isBlank(end[-1]) || end[-1] == '\r')
    return false;
  if (!scanHexField(p, end, entry.address))
    return false;
  while (p < end && isBlank(*p))
    ++p;
  if (!scanHexField(p, end, entry.size))
    return false;
  while (p < end && isBlank(*p))
    ++p;
  if (p == end || entry.address + (entry.size ? entry.size : 1) <= entry.address)
    return false;
  entry.name = std::string_view(p, static_cast<size_t>(end - p));
  return true;
}

} // namespace

bool parsePerfMapLine(std::string_view line, PerfMapEntry &entry,
                      std::string &error) {
  if (parseCommonLine(line, entry))
    return true;
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  std::string_view rest = line;
  skipBlanks(rest);

  std::string_view addressField = nextField(rest);
  if (!parseHexNumber(addressField, entry.address)) {
    error = "malformed address field " + quoted(addressField);
    return false;
  }
  skipBlanks(rest);
  if (rest.empty()) {
    error = "missing size field";
    return false;
  }
  std::string_view sizeField = nextField(rest);
  if (!parseHexNumber(sizeField, entry.size)) {
    error = "malformed size field " + quoted(sizeField);
    return false;
  }
  if (entry.address + (entry.size ? entry.size : 1) <= entry.address) {
    error = "symbol range overflows the address space";
    return false;
  }
  // The name is the rest of the line after one run of blanks; it may contain
  // spaces (V8: "JS:*fn /path/app.js:2:16", HotSpot: "long Hot.work(int)").
  skipBlanks(rest);
  while (!rest.empty() && isBlank(rest.back()))
    rest.remove_suffix(1);
  if (rest.empty()) {
    error = "missing symbol name";
    return false;
  }
  entry.name = rest;
  return true;
}

} // namespace jitsym
