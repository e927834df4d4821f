// libFuzzer target: jitdump header and record parsing, and records applied to
// a symbol table and line tables, the way JitdumpReader walks a file.
//
// Input: a jitdump file. Checked invariants:
//  - the parser never reads outside the bytes it is given (ASan), and strings
//    it returns lie inside them;
//  - Complete records have a sane size; NeedBytes asks for more than it had
//    and no more than the record's size; a record parsed from a prefix that
//    holds all it needs is the same as from the whole input;
//  - line entries of a CODE_DEBUG_INFO lie within the record;
//  - where the next record starts lies between the record's fields' end and
//    its size, and a prefix that decides it decides the same; a record start
//    taken as one is not corrupt;
//  - the symbol table stays sorted and disjoint and every line table lookup
//    returns an interned file;
//  - every unwind table kept lies within the code it was given with;
//  - JitdumpEntries reads the code bytes inside the input only (ASan) and
//    knows no more functions than CODE_LOAD and CODE_MOVE records put code at.
#include "jitsym/formats/JitdumpParser.h"
#include "jitsym/symbols/JitdumpEntries.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/symbols/UnwindTables.h"

#include "FuzzCheck.h"

#include <cstddef>
#include <map>
#include <cstdint>
#include <string>
#include <string_view>

using namespace jitsym;

namespace {

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string copy(reinterpret_cast<const char *>(data), size);
  const std::string_view bytes(copy);
  std::string error;
  std::optional<JitdumpHeader> header = parseJitdumpHeader(bytes, error);
  if (!header)
    return 0;
  CHECK(header->headerSize >= kJitdumpHeaderSize);

  SymbolTable table;
  LineTables lines;
  UnwindTables unwind;
  JitdumpSymbolsOptions options;
  options.unwind = &unwind;
  JitdumpSymbols symbols(table, lines, options);
  std::map<uint64_t, uint64_t> loadedEnds; // code start -> end of its last CODE_LOAD
  size_t placings = 0;                      // CODE_LOAD and CODE_MOVE records
  symbols.onHeader(*header);
  uint64_t at = header->headerSize;
  while (at < bytes.size()) {
    const std::string_view rest = bytes.substr(at);
    JitdumpRecordParse parse = parseJitdumpRecord(rest, header->byteSwapped);
    if (parse.kind == JitdumpRecordParse::NeedBytes) {
      CHECK(parse.needBytes > rest.size());
      break;
    }
    if (parse.kind == JitdumpRecordParse::Corrupt)
      break;
    CHECK(parse.record.size >= kJitdumpRecordHeaderSize);
    CHECK(parse.record.size <= kJitdumpMaxRecordSize);
    if (parse.record.size > rest.size())
      break; // the reader waits for the rest
    const std::string_view record = rest.substr(0, parse.record.size);
    // Where the next record starts: never past the size, never before the
    // record's fields end, and the same from any prefix that decides it.
    const std::optional<uint64_t> next = jitdumpNextRecord(rest, parse, *header);
    const std::optional<uint64_t> likeliest = jitdumpNextRecord(rest, parse, *header, true);
    CHECK(!next || likeliest == next);
    if (next) {
      CHECK(*next <= parse.record.size);
      CHECK(*next >= parse.contentSize);
      for (size_t cut : {size_t(parse.record.size), size_t(parse.record.size) + 16})
        if (cut < rest.size())
          if (const std::optional<uint64_t> early = jitdumpNextRecord(rest.substr(0, cut), parse, *header))
            CHECK(*early == *next);
    }
    CHECK(jitdumpRecordStartsAt(rest, *header) != RecordStart::Yes ||
          parse.kind != JitdumpRecordParse::Corrupt);
    if (parse.kind == JitdumpRecordParse::Complete) {
      if (const auto *load = std::get_if<JitCodeLoad>(&parse.record.body)) {
        CHECK(inside(load->name, record));
        CHECK(load->codeOffset + load->codeSize == parse.record.size);
        // Parsing only the bytes it needs gives the same record.
        JitdumpRecordParse again =
            parseJitdumpRecord(rest.substr(0, load->codeOffset), header->byteSwapped);
        CHECK(again.kind == JitdumpRecordParse::Complete);
        CHECK(std::get<JitCodeLoad>(again.record.body).name == load->name);
      }
      if (const auto *info = std::get_if<JitDebugInfo>(&parse.record.body))
        for (const JitLineEntry &entry : info->entries)
          CHECK(inside(entry.file, record));
      if (const auto *unwind = std::get_if<JitUnwindingInfo>(&parse.record.body))
        CHECK(inside(unwind->data, record));
      symbols.onRecord(parse.record, at);
      placings += std::holds_alternative<JitCodeLoad>(parse.record.body) ||
                  std::holds_alternative<JitCodeMove>(parse.record.body);
      if (const auto *load = std::get_if<JitCodeLoad>(&parse.record.body)) {
        loadedEnds[load->codeAddress] = load->codeAddress + load->codeSize;
        if (const std::vector<CallFrameInfo> *frames = unwind.frames(load->codeAddress))
          for (const CallFrameInfo &frame : *frames)
            CHECK(frame.start >= load->codeAddress && frame.start <= frame.end &&
                  frame.end <= loadedEnds[load->codeAddress]);
      }
    }
    at += likeliest.value_or(parse.record.size); // as JitdumpEntries walks
  }

  CHECK(JitdumpEntries::read(bytes).size() <= placings);

  uint64_t previousEnd = 0;
  bool first = true;
  table.forEach([&](const Symbol &s) {
    CHECK(first || s.address >= previousEnd);
    first = false;
    previousEnd = s.end();
    CHECK(table.findByAddress(s.address) == &s);
    if (std::optional<SourceLine> line = lines.find(s.address, s.end() - 1))
      CHECK(line->file.data() != nullptr);
  });
  return 0;
}
