// The core's jitdump writer (used by the JVMTI agent) read back by the parser,
// and jitsym's unload record applied to symbols: what is freed goes, a stale
// unload (the range was reused first) leaves the new code alone.
#include "jitsym/formats/JitdumpParser.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/formats/JitdumpWriter.h"
#include "jitsym/symbols/SymbolTable.h"

#include <gtest/gtest.h>

#include <string>

using namespace jitsym;

namespace {

// Parses every record after the header and hands it to `sink`.
void feed(const std::string &bytes, JitdumpSymbols &sink) {
  std::string error;
  ASSERT_TRUE(parseJitdumpHeader(bytes, error)) << error;
  size_t at = kJitdumpHeaderSize;
  while (at < bytes.size()) {
    JitdumpRecordParse parse = parseJitdumpRecord(std::string_view(bytes).substr(at), false);
    ASSERT_EQ(parse.kind, JitdumpRecordParse::Complete) << parse.error;
    sink.onRecord(parse.record, at);
    at += parse.record.size;
  }
}

std::string code(size_t size) { return std::string(size, '\x90'); }

} // namespace

TEST(JitdumpWriter, RecordsReadBackFieldForField) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 4242, 99});
  const std::string body = code(0x30);
  appendDebugInfo(bytes, 100, 0x7000, {{0x7000, 5, 0, "a/Hot.java"}, {0x7010, 6, 0, "a/Hot.java"},
                                       {0x7020, 0, 0, ""}});
  appendCodeEntry(bytes, 100, 4242, 7, 0x7000, 0x7020);
  appendCodeLoad(bytes, 100, {4242, 7, 0x7000, 1, "long Hot.work(int)", body});
  appendCodeUnload(bytes, 200, {4242, 8, 0x7000, 0x30, 1});
  appendCodeClose(bytes, 300);

  std::string error;
  std::optional<JitdumpHeader> header = parseJitdumpHeader(bytes, error);
  ASSERT_TRUE(header) << error;
  EXPECT_EQ(header->elfMachine, 62u);
  EXPECT_EQ(header->pid, 4242u);
  EXPECT_EQ(header->timestamp, 99u);

  size_t at = kJitdumpHeaderSize;
  auto next = [&] {
    JitdumpRecordParse parse = parseJitdumpRecord(std::string_view(bytes).substr(at), false);
    EXPECT_EQ(parse.kind, JitdumpRecordParse::Complete) << parse.error;
    at += parse.record.size;
    return parse.record;
  };
  JitdumpRecord info = next();
  const auto &lines = std::get<JitDebugInfo>(info.body);
  ASSERT_EQ(lines.entries.size(), 3u);
  EXPECT_EQ(lines.entries[0].address, 0x7000 + kPerfDebugAddressBias);
  EXPECT_EQ(lines.entries[1].file, "a/Hot.java"); // written once, "\xff" after
  EXPECT_EQ(lines.entries[1].line, 6u);
  EXPECT_EQ(lines.entries[2].line, 0u);

  JitdumpRecord entry = next();
  EXPECT_EQ(jitdumpRecordName(entry.id), "JITSYM_CODE_ENTRY");
  const auto &entered = std::get<JitCodeEntry>(entry.body);
  EXPECT_EQ(entered.pid, 4242u);
  EXPECT_EQ(entered.codeAddress, 0x7000u);
  EXPECT_EQ(entered.entryAddress, 0x7020u);

  JitdumpRecord load = next();
  const auto &loaded = std::get<JitCodeLoad>(load.body);
  EXPECT_EQ(load.timestamp, 100u);
  EXPECT_EQ(loaded.tid, 7u);
  EXPECT_EQ(loaded.codeAddress, 0x7000u);
  EXPECT_EQ(loaded.codeSize, 0x30u);
  EXPECT_EQ(loaded.name, "long Hot.work(int)");
  EXPECT_EQ(std::string_view(bytes).substr(at - load.size + loaded.codeOffset, 0x30), body);

  JitdumpRecord unload = next();
  EXPECT_EQ(jitdumpRecordName(unload.id), "JITSYM_CODE_UNLOAD");
  const auto &freed = std::get<JitCodeUnload>(unload.body);
  EXPECT_EQ(freed.codeAddress, 0x7000u);
  EXPECT_EQ(freed.codeSize, 0x30u);
  EXPECT_EQ(freed.codeIndex, 1u);

  EXPECT_TRUE(std::holds_alternative<JitCodeClose>(next().body));
  EXPECT_EQ(at, bytes.size());
}

TEST(JitdumpWriter, HeaderThenCodeIsTheWholeRecord) {
  const std::string body = code(0x21);
  const CodeLoadFields load{1, 2, 0x7000, 3, "stub", body};
  std::string whole, split;
  appendCodeLoad(whole, 5, load);
  appendCodeLoadHeader(split, 5, load);
  EXPECT_EQ(split.size() + body.size(), whole.size());
  EXPECT_EQ(split + body, whole);
}

TEST(JitdumpWriter, PerfMapLineIsHexWithoutPrefix) {
  EXPECT_EQ(perfMapLine(0x7f0012340000, 0x1a0, "long Hot.work(int)"),
            "7f0012340000 1a0 long Hot.work(int)\n");
}

TEST(JitdumpSymbols, UnloadRemovesTheCodeAndItsLines) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 1, 0});
  appendDebugInfo(bytes, 1, 0x1000, {{0x1000, 3, 0, "Hot.java"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x1000, 1, "A", code(0x40)});
  appendCodeLoad(bytes, 1, {1, 1, 0x2000, 2, "B", code(0x40)});
  appendCodeUnload(bytes, 2, {1, 1, 0x1000, 0x40, 1});
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols symbols(table, lines);
  feed(bytes, symbols);
  EXPECT_EQ(table.findByAddress(0x1010), nullptr);
  ASSERT_NE(table.findByAddress(0x2010), nullptr);
  EXPECT_EQ(table.name(*table.findByAddress(0x2010)), "B");
  EXPECT_EQ(lines.entries(0x1000), nullptr);
  EXPECT_EQ(symbols.unloads, 1u);
  EXPECT_EQ(symbols.unloadsOfUnknownCode, 0u);
}

TEST(JitdumpSymbols, ReusedRangeNamesTheNewCodeAndAStaleUnloadLeavesIt) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 1, 0});
  appendCodeLoad(bytes, 1, {1, 1, 0x1000, 1, "old", code(0x40)});
  appendCodeUnload(bytes, 2, {1, 1, 0x1000, 0x40, 1});
  appendCodeLoad(bytes, 3, {1, 1, 0x1000, 2, "new", code(0x20)});
  // An unload of the first code arriving late: the range is the new code's.
  appendCodeUnload(bytes, 4, {1, 1, 0x1000, 0x40, 1});
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols symbols(table, lines);
  feed(bytes, symbols);
  const Symbol *live = table.findByAddress(0x1008);
  ASSERT_NE(live, nullptr);
  EXPECT_EQ(table.name(*live), "new");
  EXPECT_EQ(symbols.unloadsOfUnknownCode, 1u);
}

namespace {

// Functions in the table with a line table, and line tables in all.
struct LineCounts {
  size_t liveWithLines = 0, tables = 0;
};
LineCounts lineCounts(const SymbolTable &table, const LineTables &lines) {
  LineCounts counts;
  table.forEach([&](const Symbol &s) { counts.liveWithLines += lines.entries(s.address) != nullptr; });
  counts.tables = lines.functionCount();
  return counts;
}

void moveCode(JitdumpSymbols &sink, uint64_t from, uint64_t to, uint64_t size) {
  JitCodeMove move;
  move.oldAddress = from;
  move.newAddress = to;
  move.codeSize = size;
  sink.onRecord({uint32_t(JitdumpRecordId::CodeMove), 0, 0, move}, 0);
}

} // namespace

TEST(JitdumpSymbols, LinesGoWhenLaterCodeOverlapsTheirFunction) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 1, 0});
  appendDebugInfo(bytes, 1, 0x1000, {{0x1000, 3, 0, "a.js"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x1000, 1, "A", code(0x40)});
  appendDebugInfo(bytes, 1, 0x2000, {{0x2000, 4, 0, "a.js"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x2000, 2, "B", code(0x40)});
  appendDebugInfo(bytes, 1, 0x3000, {{0x3000, 5, 0, "a.js"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x3000, 3, "C", code(0x40)});
  // Other code without lines over part of A, in the same read (the table
  // applies both loads at once).
  appendCodeLoad(bytes, 2, {1, 1, 0x1020, 4, "D", code(0x40)});
  SymbolTable table;
  LineTables lines;
  JitdumpSymbolsOptions options;
  options.trackCodeStarts = true;
  JitdumpSymbols symbols(table, lines, options);
  feed(bytes, symbols);
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(lines.entries(0x1000), nullptr);
  EXPECT_FALSE(symbols.announced(0x1000));
  EXPECT_TRUE(symbols.announced(0x1020));
  ASSERT_NE(lines.entries(0x2000), nullptr);
  EXPECT_EQ(lines.functionCount(), 2u);

  // In a later batch, a jitdump load over B's range starting elsewhere, and a
  // perf map line (no flag) over C's.
  std::string more;
  appendCodeLoad(more, 3, {1, 1, 0x1ff0, 5, "E", code(0x20)});
  feed(std::string(bytes, 0, kJitdumpHeaderSize) + more, symbols);
  table.add(0x3010, 0x10, "map line");
  EXPECT_EQ(table.size(), 3u);
  EXPECT_EQ(lines.entries(0x2000), nullptr);
  EXPECT_EQ(lines.entries(0x3000), nullptr);
  EXPECT_FALSE(symbols.announced(0x2000));
  EXPECT_FALSE(symbols.announced(0x3000));
  EXPECT_EQ(lines.functionCount(), 0u);
}

TEST(JitdumpSymbols, LineCountsFollowTheLiveFunctions) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 1, 0});
  for (uint64_t i = 0; i < 8; ++i) {
    appendDebugInfo(bytes, 1, 0x10000 + i * 0x100,
                    {{0x10000 + i * 0x100, uint32_t(100 + i), 0, "a.js"}});
    appendCodeLoad(bytes, 1, {1, 1, 0x10000 + i * 0x100, i, "f", code(0x80)});
  }
  // The same code again with other lines (an inline laid over its parent): the
  // new lines stay with the symbol the table keeps.
  appendDebugInfo(bytes, 2, 0x10000, {{0x10000, 30, 0, "a.js"}});
  appendCodeLoad(bytes, 2, {1, 1, 0x10000, 0, "f", code(0x80)});
  appendCodeUnload(bytes, 3, {1, 1, 0x10100, 0x80, 1});
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols symbols(table, lines);
  feed(bytes, symbols);
  table.size(); // first batch applied

  std::string more(bytes, 0, kJitdumpHeaderSize);
  appendDebugInfo(more, 4, 0x10000, {{0x10000, 40, 0, "a.js"}});
  appendCodeLoad(more, 4, {1, 1, 0x10000, 0, "f", code(0x80)}); // identical again
  appendCodeLoad(more, 4, {1, 1, 0x10240, 9, "g", code(0x80)}); // over f at 0x10200
  feed(more, symbols);
  moveCode(symbols, 0x10300, 0x10400, 0x80); // onto f at 0x10400: its lines go
  moveCode(symbols, 0x10500, 0x20000, 0x80); // to free memory: the lines move

  LineCounts counts = lineCounts(table, lines);
  EXPECT_EQ(counts.tables, counts.liveWithLines);
  EXPECT_EQ(counts.tables, 5u); // 0x10000, 0x10400 (moved), 0x20000, 0x10600, 0x10700
  ASSERT_NE(lines.find(0x10000, 0x10000), std::nullopt);
  EXPECT_EQ(lines.find(0x10000, 0x10000)->line, 40u);
  EXPECT_EQ(lines.entries(0x10100), nullptr); // unloaded
  EXPECT_EQ(lines.entries(0x10200), nullptr); // replaced
  EXPECT_EQ(lines.entries(0x10300), nullptr); // moved away
  EXPECT_EQ(lines.entries(0x10500), nullptr);
  ASSERT_NE(lines.entries(0x10400), nullptr);
  EXPECT_EQ(lines.entries(0x10400)->front().address, 0x10400u);
  EXPECT_EQ(lines.entries(0x10400)->front().line, 103u); // the moved code's
  ASSERT_NE(lines.entries(0x20000), nullptr);
  EXPECT_EQ(lines.entries(0x20000)->front().address, 0x20000u);
}

TEST(JitdumpSymbols, LinesGoWhenARewrittenMapNoLongerHasTheirCode) {
  std::string bytes;
  appendJitdumpHeader(bytes, {62, 1, 0});
  appendDebugInfo(bytes, 1, 0x1000, {{0x1000, 3, 0, "a.js"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x1000, 1, "A", code(0x40)});
  appendDebugInfo(bytes, 1, 0x2000, {{0x2000, 3, 0, "a.js"}});
  appendCodeLoad(bytes, 1, {1, 1, 0x2000, 2, "B", code(0x40)});
  SymbolTable table;
  LineTables lines;
  {
    JitdumpSymbols symbols(table, lines);
    feed(bytes, symbols);
  }
  // The map, read again into a fresh table, names B's code as it is and not
  // A's; the dump's reader is gone by then (as in SymbolSource).
  SymbolTable fresh;
  fresh.add(0x2000, 0x40, "B");
  table.assign(std::move(fresh));
  EXPECT_EQ(lines.entries(0x1000), nullptr);
  EXPECT_NE(lines.entries(0x2000), nullptr);
  EXPECT_EQ(lines.functionCount(), 1u);
}
