// Address description and crash-log symbolication.
#include "jitsym/symbols/Symbolizer.h"

#include "jitsym/base/HexText.h"
#include "jitsym/base/PrintableText.h"
#include "jitsym/formats/PerfMapParser.h"

#include <cctype>
#include <cstdio>

namespace jitsym {
namespace {

bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

} // namespace

std::optional<uint64_t> parseAddress(std::string_view text) {
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
    digits.remove_prefix(2);
  uint64_t value = 0;
  if (digits.size() > 16 || !parseHexNumber(text, value))
    return std::nullopt;
  return value;
}

std::optional<std::string> describeAddress(const SymbolTable &table, uint64_t address,
                                           const LineTables *lines) {
  const Symbol *symbol = table.findByAddress(address);
  if (!symbol)
    return std::nullopt;
  std::string text = printableText(table.name(*symbol));
  if (address != symbol->address)
    text += "+" + hexText(address - symbol->address);
  if (lines)
    if (std::optional<SourceLine> line = lines->find(symbol->address, address)) {
      text += " at " + printableText(line->file) + ":" + std::to_string(line->line);
      if (line->column)
        text += ":" + std::to_string(line->column);
    }
  return text;
}

std::string symbolicateText(const SymbolTable &table, std::string_view text,
                            const LineTables *lines) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t i = 0;
  while (i < text.size()) {
    bool atWordStart = i == 0 || !isWordChar(text[i - 1]);
    if (!atWordStart || !isHex(text[i])) {
      out.push_back(text[i++]);
      continue;
    }
    size_t start = i;
    bool prefixed = text[i] == '0' && i + 1 < text.size() &&
                    (text[i + 1] == 'x' || text[i + 1] == 'X');
    size_t digits = prefixed ? i + 2 : i;
    size_t end = digits;
    while (end < text.size() && isHex(text[end]))
      ++end;
    size_t count = end - digits;
    bool wordEnds = end == text.size() || !isWordChar(text[end]);
    // Bare hex needs at least 8 digits, so that numbers such as "42" and words
    // such as "cafe" are left alone.
    bool looksLikeAddress = wordEnds && count >= 1 && count <= 16 &&
                            (prefixed || count >= 8);
    if (!looksLikeAddress) {
      // Copy the whole word so that its tail is not taken for an address.
      while (end < text.size() && isWordChar(text[end]))
        ++end;
      out.append(text.substr(start, end - start));
      i = end;
      continue;
    }
    std::string_view token = text.substr(start, end - start);
    out.append(token);
    if (auto address = parseAddress(token))
      if (auto described = describeAddress(table, *address, lines))
        out += " " + *described;
    i = end;
  }
  return out;
}

} // namespace jitsym
