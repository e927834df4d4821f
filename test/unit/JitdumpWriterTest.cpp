// The core's jitdump writer (used by the JVMTI agent) read back by the parser,
// and jitsym's unload record applied to symbols: what is freed goes, a stale
// unload (the range was reused first) leaves the new code alone.
#include "jitsym/JitdumpParser.h"
#include "jitsym/JitdumpSymbols.h"
#include "jitsym/JitdumpWriter.h"
#include "jitsym/SymbolTable.h"

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
