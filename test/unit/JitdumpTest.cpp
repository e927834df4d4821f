// Jitdump reading over real files (incremental reads, records completed later,
// rewrites), V8's damaged file names, and removals in the symbol table.
#include "JitdumpBytes.h"
#include "TempDir.h"
#include "jitsym/files/JitdumpReader.h"
#include "jitsym/symbols/JitTables.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/formats/V8Repairs.h"
#include "jitsym/symbols/SymbolTable.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

using namespace jitsym;
using jitsym::test::put;
using jitsym::test::TempDir;

namespace {

std::string header() { return test::jitdumpHeader(); }

std::string codeLoad(uint64_t address, uint64_t size, const std::string &name) {
  std::string out;
  test::appendCodeLoad(out, address, size, name);
  return out;
}

// Entries as raw (address, line, column, file bytes with their NUL).
std::string debugInfo(uint64_t address,
                      const std::vector<std::tuple<uint64_t, uint32_t, std::string>> &entries) {
  std::string body;
  put<uint64_t>(body, address);
  put<uint64_t>(body, entries.size());
  for (const auto &[at, line, file] : entries) {
    put<uint64_t>(body, at);
    put<uint32_t>(body, line);
    put<uint32_t>(body, 1);
    body += file;
  }
  body.append(-body.size() % 8, '\0');
  std::string out;
  test::appendRecord(out, JitdumpRecordId::CodeDebugInfo, body);
  return out;
}

void append(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

} // namespace

TEST(JitdumpReader, ReadsOnlyWhatWasAppendedAndWaitsForCutRecords) {
  TempDir dir;
  const std::string path = dir.file("jit-4242.dump");
  append(path, header() + codeLoad(0x1000, 0x10, "first"));
  const std::string second = codeLoad(0x2000, 0x40, "second");
  append(path, second.substr(0, 30)); // cut inside the name

  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 1u);
  EXPECT_EQ(stats->pendingBytes, 30u);
  EXPECT_EQ(loaded.symbols.size(), 1u);

  append(path, second.substr(30, 50)); // name complete, code still cut
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 0u) << "a record waits until all of it is written";
  EXPECT_EQ(loaded.symbols.size(), 1u);

  append(path, second.substr(80));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 1u);
  EXPECT_EQ(stats->bytesRead, second.size());
  EXPECT_EQ(stats->pendingBytes, 0u);
  ASSERT_NE(loaded.symbols.findByAddress(0x2010), nullptr);
  EXPECT_EQ(loaded.symbols.name(*loaded.symbols.findByAddress(0x2010)), "second");

  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 0u);
  EXPECT_EQ(stats->bytesRead, 0u);
}

TEST(JitdumpReader, RewrittenFileIsReadAgain) {
  TempDir dir;
  const std::string path = dir.file("jit-1.dump");
  append(path, header() + codeLoad(0x1000, 0x10, "old"));
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  ASSERT_TRUE(bool(reader.read(sink)));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << header() + codeLoad(0x5000, 0x10, "new");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(loaded.symbols.findByAddress(0x1000), nullptr);
  ASSERT_NE(loaded.symbols.findByAddress(0x5000), nullptr);
}

// A runtime's stdio buffer holds the newest records: they name their code at
// once, and are counted once, when the file holds them, however the flush cuts.
TEST(JitdumpReader, UnflushedBytesAreReadOnceWhereverTheFlushCuts) {
  TempDir dir;
  const std::string path = dir.file("jit-3.dump");
  const std::string first = codeLoad(0x1000, 0x10, "first");
  const std::string second = codeLoad(0x2000, 0x20, "second");
  const std::string third = codeLoad(0x3000, 0x30, "third");
  append(path, header());
  JitTables loaded;
  JitdumpSymbolsOptions options;
  options.trackCodeStarts = true;
  JitdumpSymbols sink(loaded.symbols, loaded.lines, options);
  JitdumpReader reader(path);

  // The file has the header only; two records and part of a third are buffered.
  const std::string buffered = first + second + third.substr(0, 20);
  auto stats = reader.read(sink, buffered);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 0u);
  EXPECT_EQ(stats->provisionalRecords, 2u);
  EXPECT_EQ(stats->pendingBytes, 0u) << "the file's own bytes are all read";
  EXPECT_EQ(reader.offset(), header().size()) << "the reader never moves into the buffer";
  EXPECT_EQ(loaded.symbols.size(), 2u);
  EXPECT_EQ(sink.loads, 0u);
  EXPECT_EQ(sink.provisionalLoads(), 2u);

  // The flush wrote part of `second` only; the rest and `third` are buffered.
  append(path, first + second.substr(0, 9));
  stats = reader.read(sink, second.substr(9) + third);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_FALSE(stats->rewritten) << "bytes read from the buffer are not a rewrite";
  EXPECT_EQ(stats->records, 1u) << "`first` is in the file";
  EXPECT_EQ(stats->provisionalRecords, 2u);
  ASSERT_NE(loaded.symbols.findByAddress(0x3000), nullptr);
  EXPECT_EQ(loaded.symbols.size(), 3u);
  EXPECT_EQ(sink.loads, 1u);
  EXPECT_EQ(sink.provisionalLoads(), 2u);

  // Everything reaches the file: each load is counted once, none withdrawn.
  append(path, second.substr(9) + third);
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 2u);
  EXPECT_EQ(stats->provisionalRecords, 0u);
  EXPECT_EQ(sink.loads, 3u);
  EXPECT_EQ(sink.provisionalLoads(), 0u);
  EXPECT_EQ(loaded.symbols.size(), 3u);
  EXPECT_TRUE(sink.announced(0x2000));
  EXPECT_FALSE(sink.announced(0x2010));
  EXPECT_TRUE(sink.diagnostics.empty());
}

// glibc stopped between its write(2) of a full buffer and the reset of
// _IO_write_ptr: the buffered bytes are the file's last bytes already. Read
// as if appended, they made the dump corrupt for the rest of the session.
TEST(JitdumpReader, BufferedBytesAlreadyInTheFileAreIgnored) {
  TempDir dir;
  const std::string path = dir.file("jit-5.dump");
  const std::string first = codeLoad(0x1000, 0x10, "first");
  const std::string second = codeLoad(0x2000, 0x20, "second");
  const std::string third = codeLoad(0x3000, 0x30, "third");
  append(path, header() + first.substr(0, 10));
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);

  // An earlier stop: the buffer holds the rest of `first` and part of `second`.
  auto stats = reader.read(sink, first.substr(10) + second.substr(0, 30));
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->provisionalRecords, 1u);

  // The buffer filled with `second` and a part of `third`, and glibc wrote it;
  // its pointers still span the same bytes.
  const std::string written = first.substr(10) + second + third.substr(0, 20);
  append(path, written);
  stats = reader.read(sink, written);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_TRUE(stats->unflushedInFile);
  EXPECT_FALSE(stats->corrupt);
  EXPECT_EQ(stats->records, 2u);
  EXPECT_EQ(stats->provisionalRecords, 0u);
  EXPECT_EQ(stats->pendingBytes, 20u);
  EXPECT_TRUE(sink.diagnostics.empty());
  EXPECT_EQ(sink.loads, 2u) << "`first` came from the buffer first and is counted once";
  EXPECT_EQ(sink.provisionalLoads(), 0u);
  EXPECT_EQ(loaded.symbols.size(), 2u);

  // The reader goes on with the file.
  append(path, third.substr(20));
  stats = reader.read(sink, codeLoad(0x4000, 0x10, "fourth"));
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 1u);
  EXPECT_EQ(stats->provisionalRecords, 1u);
  EXPECT_EQ(sink.loads, 3u);
  EXPECT_EQ(loaded.symbols.size(), 4u);
  EXPECT_TRUE(sink.diagnostics.empty());
}

// A flush cuts anywhere: the file ends inside a CODE_DEBUG_INFO, the buffer
// holds its rest, its CODE_LOAD and the start of the next pair. The lines reach
// the provisional load, and what waits for a CODE_LOAD is the file's alone.
TEST(JitdumpReader, BufferedBytesCutMidRecordKeepLinesInStep) {
  TempDir dir;
  const std::string path = dir.file("jit-6.dump");
  const std::string file = "/app.js";
  const std::string lines1 = debugInfo(0x1000, {{0x1040, 3, file + '\0'}});
  const std::string load1 = codeLoad(0x1000, 0x40, "one");
  const std::string lines2 = debugInfo(0x2000, {{0x2040, 9, file + '\0'}});
  const std::string load2 = codeLoad(0x2000, 0x40, "two");
  const std::string all = header() + lines1 + load1 + lines2 + load2;
  const size_t cut = header().size() + 20;                            // in lines1
  const size_t bufferEnd = header().size() + lines1.size() + load1.size() + 12; // in lines2
  append(path, all.substr(0, cut));
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);

  auto stats = reader.read(sink, all.substr(cut, bufferEnd - cut));
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->provisionalRecords, 2u);
  ASSERT_NE(loaded.symbols.findByAddress(0x1000), nullptr);
  ASSERT_TRUE(loaded.lines.find(0x1000, 0x1000).has_value());
  EXPECT_EQ(loaded.lines.find(0x1000, 0x1000)->line, 3u);

  // The flush cut inside `load1`; the buffer now ends inside `load2`.
  const size_t flushed = header().size() + lines1.size() + 30;
  append(path, all.substr(cut, flushed - cut));
  stats = reader.read(sink, all.substr(flushed, all.size() - 8 - flushed));
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->provisionalRecords, 2u) << "load1 again, lines2";
  EXPECT_EQ(sink.loads, 0u);

  append(path, all.substr(flushed));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 3u) << "lines1 came at the read before";
  EXPECT_EQ(sink.loads, 2u);
  ASSERT_TRUE(loaded.lines.find(0x1000, 0x1000).has_value());
  EXPECT_EQ(loaded.lines.find(0x1000, 0x1000)->line, 3u);
  ASSERT_TRUE(loaded.lines.find(0x2000, 0x2000).has_value());
  EXPECT_EQ(loaded.lines.find(0x2000, 0x2000)->line, 9u);
  EXPECT_EQ(loaded.symbols.size(), 2u);
  EXPECT_TRUE(sink.diagnostics.empty());
}

// Bytes that are not records after the file's end (another FILE's, stale, a
// wrong guess) are no diagnostic of the file and do not make it corrupt.
TEST(JitdumpReader, BufferedGarbageLeavesTheFileReadable) {
  TempDir dir;
  const std::string path = dir.file("jit-7.dump");
  append(path, header() + codeLoad(0x1000, 0x10, "first"));
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);

  // A record that claims 4 bytes: in the file, nothing after it could be read.
  std::string garbage;
  put<uint32_t>(garbage, 0);
  put<uint32_t>(garbage, 4);
  garbage += std::string(40, 'x');
  auto stats = reader.read(sink, codeLoad(0x2000, 0x10, "ghost") + garbage);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_TRUE(stats->unflushedUnreadable);
  EXPECT_FALSE(stats->corrupt);
  EXPECT_EQ(stats->provisionalRecords, 0u) << "a buffer that does not parse names nothing";
  EXPECT_EQ(loaded.symbols.findByAddress(0x2000), nullptr);
  EXPECT_TRUE(sink.diagnostics.empty());

  // Not a jitdump at all, on a file whose header is still buffered.
  TempDir other;
  const std::string empty = other.file("jit-8.dump");
  append(empty, "");
  JitdumpReader early(empty);
  JitTables nothing;
  JitdumpSymbols emptySink(nothing.symbols, nothing.lines);
  stats = early.read(emptySink, std::string(64, '\x7f'));
  ASSERT_TRUE(bool(stats)) << "the buffer is not the file: " << llvm::toString(stats.takeError());
  EXPECT_TRUE(stats->unflushedUnreadable);

  append(path, codeLoad(0x3000, 0x10, "third"));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 1u);
  EXPECT_EQ(sink.loads, 2u);
  ASSERT_NE(loaded.symbols.findByAddress(0x3000), nullptr);
  EXPECT_TRUE(sink.diagnostics.empty());
}

// What the file holds at a provisional record's offset wins: a name only the
// buffer gave goes when the file holds another record there.
TEST(JitdumpReader, ProvisionalNamesTheFileContradictsAreWithdrawn) {
  TempDir dir;
  const std::string path = dir.file("jit-9.dump");
  append(path, header());
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink, codeLoad(0x9000, 0x10, "ghost"));
  ASSERT_TRUE(bool(stats));
  ASSERT_NE(loaded.symbols.findByAddress(0x9000), nullptr);

  append(path, codeLoad(0x5000, 0x10, "real"));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(loaded.symbols.findByAddress(0x9000), nullptr);
  ASSERT_NE(loaded.symbols.findByAddress(0x5000), nullptr);
  EXPECT_EQ(sink.loads, 1u);
  EXPECT_EQ(sink.provisionalLoads(), 0u);

  // The same holds for a buffer that no longer holds what it held.
  stats = reader.read(sink, codeLoad(0x7000, 0x10, "brief"));
  ASSERT_TRUE(bool(stats));
  ASSERT_NE(loaded.symbols.findByAddress(0x7000), nullptr);
  stats = reader.read(sink, codeLoad(0x8000, 0x10, "instead"));
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(loaded.symbols.findByAddress(0x7000), nullptr);
  ASSERT_NE(loaded.symbols.findByAddress(0x8000), nullptr);
  EXPECT_EQ(sink.provisionalLoads(), 1u);
}

// A provisional record is applied once: a CODE_LOAD and the CODE_MOVE of its
// code, confirmed by the file later, leave the code at its new place only.
TEST(JitdumpReader, ConfirmedRecordsAreNotAppliedAgain) {
  TempDir dir;
  const std::string path = dir.file("jit-10.dump");
  std::string move;
  std::string body;
  put<uint32_t>(body, 4242);
  put<uint32_t>(body, 4242);
  for (uint64_t v : {uint64_t(0x1000), uint64_t(0x1000), uint64_t(0x6000), uint64_t(0x10),
                     uint64_t(0)})
    put(body, v);
  test::appendRecord(move, JitdumpRecordId::CodeMove, body);
  const std::string records = codeLoad(0x1000, 0x10, "moved") + move;
  append(path, header());
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  ASSERT_TRUE(bool(reader.read(sink, records)));
  EXPECT_EQ(loaded.symbols.findByAddress(0x1000), nullptr);
  ASSERT_NE(loaded.symbols.findByAddress(0x6000), nullptr);
  ASSERT_TRUE(bool(reader.read(sink, records))) << "the same buffer at the next stop";

  append(path, records);
  ASSERT_TRUE(bool(reader.read(sink)));
  EXPECT_EQ(loaded.symbols.findByAddress(0x1000), nullptr);
  ASSERT_NE(loaded.symbols.findByAddress(0x6000), nullptr);
  EXPECT_EQ(loaded.symbols.size(), 1u);
  EXPECT_EQ(sink.loads, 1u);
  EXPECT_EQ(sink.moves, 1u);
  EXPECT_EQ(sink.movesOfUnknownCode, 0u);
}

// The header itself may still be buffered when the first sync runs: its
// records name their code; the reader takes the header once the file has it.
TEST(JitdumpReader, HeaderInTheBufferIsRead) {
  TempDir dir;
  const std::string path = dir.file("jit-4.dump");
  append(path, "");
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  const std::string bytes = header() + codeLoad(0x1000, 8, "f");
  auto stats = reader.read(sink, bytes);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->provisionalRecords, 1u);
  ASSERT_NE(loaded.symbols.findByAddress(0x1000), nullptr);
  EXPECT_FALSE(reader.header().has_value());

  append(path, bytes);
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  ASSERT_TRUE(reader.header().has_value());
  EXPECT_EQ(sink.loads, 1u);
  EXPECT_EQ(loaded.symbols.size(), 1u);
}

TEST(JitdumpReader, LargeCodeIsSkippedNotRead) {
  TempDir dir;
  const std::string path = dir.file("jit-2.dump");
  // 3 records of 5 MiB of code each: more than a read chunk apiece.
  std::string bytes = header();
  for (int i = 0; i < 3; ++i)
    bytes += codeLoad(0x10000000 + i * 0x1000000, 5u << 20, "big" + std::to_string(i));
  append(path, bytes);
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->records, 3u);
  EXPECT_EQ(loaded.symbols.size(), 3u);
  EXPECT_EQ(loaded.symbols.name(*loaded.symbols.findByAddress(0x12000000)), "big2");
}

TEST(JitdumpParser, DamagedV8FileNamesAreResyncedAndRestored) {
  // Node 20 writes the right length but freed memory (NULs included) at the
  // start of a script's file name; entries must stay in step and the path
  // comes back from the code's name.
  const std::string path = "/tmp/noderesearch/app.js";
  std::string damaged = path;
  damaged.replace(0, 16, std::string("\x92zT\n\0\0\0\0\xcd\x99t\xc9\x8f\x14\xcf\xe2", 16));
  const std::string file = damaged + '\0';
  std::string dump = header() +
                     debugInfo(0x1000, {{0x1040, 3, file}, {0x1050, 4, file}, {0x1060, 5, file}}) +
                     codeLoad(0x1000, 0x40, "JS:*fib " + path + ":2:13");
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  uint64_t at = 40;
  while (at < dump.size()) {
    JitdumpRecordParse parse = parseJitdumpRecord(std::string_view(dump).substr(at), false);
    ASSERT_EQ(parse.kind, JitdumpRecordParse::Complete) << parse.error;
    if (const auto *info = std::get_if<JitDebugInfo>(&parse.record.body)) {
      ASSERT_EQ(info->entries.size(), 3u);
      for (const JitLineEntry &entry : info->entries)
        EXPECT_EQ(entry.file, std::string_view(damaged)) << "line " << entry.line;
      EXPECT_EQ(info->entries[2].address, 0x1060u);
    }
    sink.onRecord(parse.record, at);
    at += parse.record.size;
  }
  for (auto [address, line] : {std::pair{0x1000, 3u}, {0x1012, 4u}, {0x1020, 5u}}) {
    std::optional<SourceLine> found = loaded.lines.find(0x1000, address);
    ASSERT_TRUE(found) << address;
    EXPECT_EQ(found->file, path);
    EXPECT_EQ(found->line, line);
  }
}

TEST(V8Repairs, RepairNeedsAPathOfTheSameLength) {
  EXPECT_EQ(repairedFileName("/a/b.js", "JS:*f /x/y.js:1:1"), "/a/b.js"); // intact
  const std::string damaged = std::string("\x01\x02\x03", 3) + "b.js"; // "/a/b.js"
  EXPECT_EQ(repairedFileName(damaged, "JS:*f /a/b.js:1:1"), "/a/b.js");
  EXPECT_EQ(repairedFileName(damaged, "JS:*get f /a/b.js:1:1"), "/a/b.js");
  // Node 20 also gives names with no byte left intact (seen live: 16 bytes
  // for "/tmp/uw/lines.js").
  const std::string lost("\xCEq\x8D\x05\x00\x00\x00\x00%Z\x88K\xA7\x1A\xDC\x8A", 16);
  EXPECT_EQ(repairedFileName(lost, "JS:*sumSquares /tmp/uw/lines.js:8:20"), "/tmp/uw/lines.js");
  EXPECT_EQ(repairedFileName(damaged, "JS:*f /aa/b.js:1:1"), std::nullopt); // other length
  EXPECT_EQ(repairedFileName(damaged, "Builtin:Abort"), std::nullopt);     // no path
}

TEST(JitdumpSymbols, LinesOfAFileNameBeyondRepairAreDropped) {
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols sink(table, lines);
  const std::string lost("\x01\x02\x03", 3);
  JitdumpRecord info{uint32_t(JitdumpRecordId::CodeDebugInfo), 0, 0, JitDebugInfo{}};
  std::get<JitDebugInfo>(info.body) = {0x1000, {{0x1040, 3, 0, "/a.js"}, {0x1050, 4, 0, lost}}};
  sink.onRecord(info, 0);
  JitCodeLoad load;
  load.codeAddress = 0x1000;
  load.codeSize = 0x100;
  load.name = "JS:*f /a.js:1:1";
  sink.onRecord({uint32_t(JitdumpRecordId::CodeLoad), 0, 0, load}, 0);
  ASSERT_TRUE(lines.find(0x1000, 0x1005));
  EXPECT_EQ(lines.find(0x1000, 0x1005)->line, 3u);
  EXPECT_FALSE(lines.find(0x1000, 0x1015)); // not line 3 either
}

TEST(SymbolTable, RemoveTakesCodeAwayWithoutReplacement) {
  SymbolTable t;
  t.add(0x1000, 0x10, "a");
  t.add(0x2000, 0x10, "b");
  t.takeChanges();
  t.remove(0x1000, 0x10);
  t.add(0x3000, 0x10, "a"); // moved
  SymbolChanges changes = t.takeChanges();
  EXPECT_EQ(t.findByAddress(0x1000), nullptr);
  ASSERT_NE(t.findByAddress(0x3000), nullptr);
  EXPECT_EQ(t.size(), 2u);
  ASSERT_EQ(changes.removed.size(), 1u);
  EXPECT_EQ(changes.removed[0].address, 0x1000u);
  ASSERT_EQ(changes.added.size(), 1u);
  EXPECT_EQ(changes.added[0]->address, 0x3000u);
  // A removal followed by a new load in the same batch: the load wins.
  t.remove(0x2000, 0x10);
  t.add(0x2000, 0x8, "c");
  EXPECT_EQ(t.name(*t.findByAddress(0x2000)), "c");
  EXPECT_EQ(t.replacedCount(), 2u);
}

TEST(JitdumpParser, RecordSmallerThanItsFixedFieldsIsNamed) {
  auto record = [](uint32_t id, uint32_t size) {
    std::string bytes(size, '\0');
    std::memcpy(bytes.data(), &id, 4);
    std::memcpy(bytes.data() + 4, &size, 4);
    return bytes;
  };
  const std::string move = record(1, 24), load = record(0, 56);
  JitdumpRecordParse parse = parseJitdumpRecord(move, false);
  EXPECT_EQ(parse.kind, JitdumpRecordParse::Malformed);
  EXPECT_EQ(parse.error, "CODE_MOVE: record of 24 bytes is too small for its fields");
  parse = parseJitdumpRecord(load, false);
  EXPECT_EQ(parse.kind, JitdumpRecordParse::Malformed);
  EXPECT_EQ(parse.error, "CODE_LOAD: record of 56 bytes is too small for its fields and a name");
}

// Interrupted before a window, the reader keeps the records it applied and the
// next read starts at the first record it did not.
TEST(JitdumpReader, InterruptedReadGoesOnFromWhereItStopped) {
  TempDir dir;
  const std::string path = dir.file("jit-3.dump");
  std::string bytes = header();
  for (int i = 0; i < 4; ++i)
    bytes += codeLoad(0x10000000 + i * 0x1000000, 5u << 20, "big" + std::to_string(i));
  append(path, bytes);
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  int asked = 0;
  auto stats = reader.read(sink, {}, [&] { return ++asked >= 2; });
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->interrupted);
  EXPECT_EQ(stats->records, 2u);
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_FALSE(stats->interrupted);
  EXPECT_EQ(stats->records, 2u);
  EXPECT_EQ(loaded.symbols.size(), 4u);
  EXPECT_EQ(loaded.symbols.name(*loaded.symbols.findByAddress(0x13000000)), "big3");
}

TEST(V8Repairs, AppliedToParsedEntriesAfterParsing) {
  const std::string lost("\x01\x02\x03\x04\x05\x06\x07", 7); // "/a/b.js"
  std::vector<JitLineEntry> entries = {
      {0x1000, 1, 0, lost}, {0x1010, 2, 0, lost}, {0x1020, 3, 0, "/c.js"}, {0x1030, 4, 0, "\x01"}};
  std::list<std::string> names;
  repairV8FileNames(entries, "JS:*f /a/b.js:1:1", names);
  EXPECT_EQ(entries[0].file, "/a/b.js");
  EXPECT_EQ(entries[1].file, "/a/b.js");
  EXPECT_EQ(entries[2].file, "/c.js");
  EXPECT_EQ(entries[3].line, 0u); // beyond repair: no line rather than a wrong one
  EXPECT_EQ(entries[1].line, 2u);
  EXPECT_EQ(names.size(), 2u); // one per run of equal damaged names; "/c.js" is intact
}

namespace {

// The record with its total_size `extra` bytes larger than what it holds.
std::string misdeclared(std::string record, uint32_t extra) {
  uint32_t size;
  std::memcpy(&size, record.data() + 4, sizeof size);
  size += extra;
  std::memcpy(record.data() + 4, &size, sizeof size);
  return record;
}

} // namespace

// V8 14 (Node 26) writes a CODE_DEBUG_INFO whose total_size says 12 bytes more
// than its entries take: the next record starts 12 bytes earlier. Read by the
// size, the next "record" was garbage and the rest of the file was lost (or,
// worse, reading waited at it silently for ever). Read in pieces as V8's
// buffer flushes cut it, it is said once and everything after it is named.
TEST(JitdumpReader, RecordLargerThanItsContentIsReadAtItsContentsEnd) {
  TempDir dir;
  const std::string path = dir.file("jit-4242.dump");
  const std::string bad = misdeclared(
      debugInfo(0x2000, {{0x2040, 7, std::string("/app/inlined-from-elsewhere.js") + '\0'}}), 12);
  const std::string load = codeLoad(0x2000, 0x40, "JS:*outerLoop /app/main.js:3:20");
  const std::string after = codeLoad(0x3000, 0x10, "JS:*leaf /app/main.js:9:14");
  append(path, header() + codeLoad(0x1000, 0x10, "JS:*before") + bad + load.substr(0, 8));

  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 1u) << "the bad record waits for the bytes that tell where the next starts";
  EXPECT_TRUE(sink.diagnostics.empty());

  append(path, load.substr(8) + after);
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 3u);
  EXPECT_EQ(stats->stepsLost, 1u);
  EXPECT_EQ(stats->bytesSkipped, 0u);
  EXPECT_FALSE(stats->corrupt);
  EXPECT_EQ(stats->pendingBytes, 0u);
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_NE(sink.diagnostics[0].str().find("CODE_DEBUG_INFO: total_size " +
                                           std::to_string(bad.size() + 12) +
                                           " disagrees with its content: the next record "
                                           "starts 12 bytes earlier"),
            std::string::npos)
      << sink.diagnostics[0].str();
  const Symbol *outer = loaded.symbols.findByAddress(0x2010);
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(loaded.symbols.name(*outer), "JS:*outerLoop /app/main.js:3:20");
  ASSERT_TRUE(loaded.lines.find(0x2000, 0x2000).has_value()) << "its lines came with it";
  ASSERT_NE(loaded.symbols.findByAddress(0x3000), nullptr);
  EXPECT_EQ(reader.damage().stepsLost, 1u);
}

// The same record still in the runtime's stdio buffer names what follows it too.
TEST(JitdumpReader, RecordLargerThanItsContentInTheBuffer) {
  TempDir dir;
  const std::string path = dir.file("jit-4242.dump");
  const std::string bad =
      misdeclared(debugInfo(0x2000, {{0x2040, 7, std::string("/app/x.js") + '\0'}}), 12);
  append(path, header());
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink, bad + codeLoad(0x2000, 0x40, "JS:*hot"));
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->provisionalRecords, 2u);
  EXPECT_FALSE(stats->unflushedUnreadable);
  EXPECT_NE(loaded.symbols.findByAddress(0x2000), nullptr);
}

// Bytes that are no record, at the end of a file still being written: reading
// says nothing yet and waits there; once a record follows them it is found,
// said once, and named.
TEST(JitdumpReader, LostStepAtTheEndIsFoundAgainAsTheFileGrows) {
  TempDir dir;
  const std::string path = dir.file("jit-4242.dump");
  append(path, header() + codeLoad(0x1000, 0x10, "first") + std::string(37, '\xab'));
  JitTables loaded;
  JitdumpSymbols sink(loaded.symbols, loaded.lines);
  JitdumpReader reader(path);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 1u);
  EXPECT_FALSE(stats->corrupt);
  EXPECT_TRUE(sink.diagnostics.empty()) << "said once found, or given up";
  ASSERT_TRUE(reader.damage().lostAt.has_value());

  append(path, codeLoad(0x2000, 0x10, "second") + codeLoad(0x3000, 0x10, "third"));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << llvm::toString(stats.takeError());
  EXPECT_EQ(stats->records, 2u);
  EXPECT_EQ(stats->stepsLost, 1u);
  EXPECT_EQ(stats->bytesSkipped, 37u);
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_NE(sink.diagnostics[0].str().find("skipped 37 bytes to the next record"),
            std::string::npos)
      << sink.diagnostics[0].str();
  EXPECT_NE(loaded.symbols.findByAddress(0x2000), nullptr);
  EXPECT_NE(loaded.symbols.findByAddress(0x3000), nullptr);
  EXPECT_FALSE(reader.damage().lostAt.has_value());

  // Read whole, the same file says the same.
  JitTables whole;
  JitdumpSymbols wholeSink(whole.symbols, whole.lines);
  JitdumpReader once(path);
  ASSERT_TRUE(bool(once.read(wholeSink)));
  ASSERT_EQ(wholeSink.diagnostics.size(), 1u);
  EXPECT_EQ(wholeSink.diagnostics[0].str(), sink.diagnostics[0].str());
}

// JITSYM_CODE_ENTRY says where the next CODE_LOAD at its address is entered:
// kept with the function's lines, dropped when new code without one (or an
// entry outside it) takes the start, and gone with the code.
TEST(JitdumpSymbols, EntryPointsFollowTheirCode) {
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols sink(table, lines);
  auto entry = [&](uint64_t code, uint64_t at) {
    sink.onRecord({uint32_t(JitdumpRecordId::JitsymCodeEntry), 0, 0, JitCodeEntry{1, 1, code, at}},
                  0);
  };
  auto load = [&](uint64_t code, uint64_t size) {
    JitCodeLoad record;
    record.codeAddress = code;
    record.codeSize = size;
    record.name = "int Leaf.leaf(int)";
    sink.onRecord({uint32_t(JitdumpRecordId::CodeLoad), 0, 0, record}, 0);
  };
  entry(0x1000, 0x1020);
  load(0x1000, 0x100);
  EXPECT_EQ(lines.entryPoint(0x1000), 0x1020u);
  load(0x1000, 0x100); // compiled again there, no entry said
  EXPECT_FALSE(lines.entryPoint(0x1000));
  entry(0x1000, 0x1200); // past the code
  load(0x1000, 0x100);
  EXPECT_FALSE(lines.entryPoint(0x1000));
  entry(0x2000, 0x2020);
  entry(0x3000, 0x3020); // for code never loaded: stays pending, applies to nothing
  load(0x2000, 0x100);
  EXPECT_EQ(lines.entryPoint(0x2000), 0x2020u);
  load(0x2080, 0x100); // overlaps: the code at 0x2000 goes, and its entry with it
  table.findByAddress(0x2080);
  EXPECT_FALSE(lines.entryPoint(0x2000));
}
