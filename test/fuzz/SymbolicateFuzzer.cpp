// libFuzzer target: crash-log symbolication (`jitsym symbolicate MAP FILE`),
// whose text is whatever a crashed process, its runtime or a user pasted.
//
// Input: a perf map, a NUL, then the text to symbolicate. The map's entries
// become the symbols (renamed "\x01S<n>" so that annotations can be told from
// the text; \x01 in the text is replaced), some with line tables. Checked
// invariants:
//  - the output is the text with " NAME[+0xOFF][ at FILE:LINE[:COLUMN]]" (NAME
//    and FILE with their control characters escaped, as printableText does) after
//    exactly the words that are addresses ("0x" and 1 to 16 hex digits, or 8 to
//    16 bare hex digits) a symbol covers: a reference model, word by word;
//  - a described address lies inside the symbol named, at the offset given;
//  - parseAddress accepts exactly an optional 0x and 1 to 16 hex digits, and
//    gives their value.
#include "jitsym/symbols/LineTables.h"
#include "jitsym/formats/PerfMapParser.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/symbols/Symbolizer.h"

#include "jitsym/base/PrintableText.h"

#include "FuzzCheck.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {

bool isWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

bool allHex(std::string_view text) {
  for (char c : text)
    if (!isHexDigit(c))
      return false;
  return true;
}

bool prefixed(std::string_view word) {
  return word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
}

// Whether a word of the text is taken for an address.
bool looksLikeAddress(std::string_view word) {
  if (prefixed(word))
    return word.size() - 2 <= 16 && allHex(word.substr(2));
  return word.size() >= 8 && word.size() <= 16 && allHex(word);
}

void checkParseAddress(std::string_view word) {
  const std::optional<uint64_t> value = parseAddress(word);
  const std::string_view digits = prefixed(word) ? word.substr(2) : word;
  const bool valid = !digits.empty() && digits.size() <= 16 && allHex(digits);
  CHECK(value.has_value() == valid);
  if (value)
    CHECK(*value == std::strtoull(std::string(digits).c_str(), nullptr, 16));
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

// What follows an address covered by a symbol, built from the symbol table's
// own answer (which is checked against the address).
std::string annotation(const SymbolTable &table, const LineTables &lines, uint64_t address) {
  const Symbol *symbol = table.findByAddress(address);
  CHECK(symbol);
  CHECK(symbol->address <= address && address - symbol->address < (symbol->size ? symbol->size : 1));
  std::string text = " " + printableText(table.name(*symbol));
  if (address != symbol->address)
    text += "+" + hex(address - symbol->address);
  if (std::optional<SourceLine> line = lines.find(symbol->address, address)) {
    CHECK(!line->file.empty() && line->file[0] == '\x01'); // one of ours
    text += " at " + printableText(line->file) + ":" + std::to_string(line->line);
    if (line->column)
      text += ":" + std::to_string(line->column);
  }
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view input(reinterpret_cast<const char *>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view map = input.substr(0, nul);
  std::string text(nul == std::string_view::npos ? std::string_view() : input.substr(nul + 1));
  for (char &c : text)
    if (c == '\x01')
      c = '.';

  SymbolTable table;
  LineTables lines;
  std::vector<std::string> names, files;
  parsePerfMapChunk(
      std::string(map) + "\n", 1,
      [&](const PerfMapEntry &e) {
        if (e.address + (e.size ? e.size : 1) < e.address)
          return; // a zero-size symbol at the last address wraps (a known limit)
        names.push_back("\x01S" + std::to_string(names.size()));
        table.add(e.address, e.size, names.back());
        if ((e.address >> 4) % 3 == 0 && e.size >= 3) { // some functions have lines
          files.push_back("\x01" "F" + std::to_string(files.size()));
          std::vector<JitLineEntry> entries;
          for (uint32_t k = 0; k < 3; ++k)
            entries.push_back({e.address + k * (e.size / 3), 10 + k, k, files.back()});
          lines.set(e.address, entries);
        }
      },
      [](uint64_t, std::string) {});

  const std::string out = symbolicateText(table, text, &lines);

  std::string model;
  for (size_t i = 0; i < text.size();) {
    if (!isWordChar(text[i])) {
      model += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && isWordChar(text[end]))
      ++end;
    const std::string_view word = std::string_view(text).substr(i, end - i);
    checkParseAddress(word);
    model += word;
    if (looksLikeAddress(word)) {
      const std::optional<uint64_t> address = parseAddress(word);
      CHECK(address);
      if (table.findByAddress(*address)) {
        const std::string described = annotation(table, lines, *address);
        model += described;
        CHECK(describeAddress(table, *address, &lines) == described.substr(1));
      } else {
        CHECK(!describeAddress(table, *address, &lines));
      }
    }
    i = end;
  }
  CHECK(out == model);
  return 0;
}
