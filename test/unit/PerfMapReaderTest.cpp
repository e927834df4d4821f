// PerfMapReader over real files: appends, pending lines, rewrites, replacement,
// refusal of links, non-regular files and untrusted owners; and TableSink.
#include "TempDir.h"
#include "jitsym/files/PerfMapReader.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/files/TableSink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace jitsym;
using jitsym::test::TempDir;

namespace {


void writeFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void appendFile(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
}

// Overwrites the file's bytes without truncating or changing its inode.
void overwriteInPlace(const std::string &path, const std::string &text) {
  int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, text.data(), text.size(), 0), ssize_t(text.size()));
  ::close(fd);
}

struct Recorder : PerfMapSink {
  int rewrites = 0;
  std::vector<std::pair<uint64_t, std::string>> entries;
  std::vector<Diagnostic> diagnostics;
  void onRewrite() override {
    ++rewrites;
    entries.clear();
  }
  void onEntry(const PerfMapEntry &e) override {
    entries.emplace_back(e.address, std::string(e.name));
  }
  void onDiagnostic(const Diagnostic &d) override { diagnostics.push_back(d); }
};

std::string errorText(llvm::Error error) { return llvm::toString(std::move(error)); }

// The error a read fails with; empty when it succeeds.
std::string readError(PerfMapReader &reader, Recorder &sink) {
  auto stats = reader.read(sink);
  return stats ? std::string() : errorText(stats.takeError());
}

std::string lines(int from, int to, const std::string &prefix = "f") {
  std::string text;
  char buffer[64];
  for (int i = from; i < to; ++i) {
    std::snprintf(buffer, sizeof(buffer), "%x 10 %s%d\n", 0x10000 + i * 0x10, prefix.c_str(), i);
    text += buffer;
  }
  return text;
}

// A writer's rewrite racing a read: `rewrite` replaces the file as the reader
// begins to take the new bytes, or right after it took them.
struct RewritingSink : Recorder {
  enum When { AsTheReadBegins, AfterTheRead } when = AsTheReadBegins;
  std::string path, rewrite;
  void rewriteNow() {
    if (!rewrite.empty())
      writeFile(path, std::exchange(rewrite, std::string()));
  }
  char *beginRead(uint64_t bytes) override {
    if (when == AsTheReadBegins)
      rewriteNow();
    return PerfMapSink::beginRead(bytes);
  }
  void endRead(uint64_t unused) override {
    if (when == AfterTheRead)
      rewriteNow();
    PerfMapSink::endRead(unused);
  }
};

} // namespace

TEST(PerfMapReader, IncrementalReadsOnlyNewEntries) {
  TempDir dir;
  std::string path = dir.file("perf-1.map");
  writeFile(path, "1000 10 a\n2000 10 b\n");
  PerfMapReader reader(path);
  Recorder sink;
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << errorText(stats.takeError());
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(stats->entries, 2u);
  EXPECT_EQ(stats->bytesRead, 20u);
  EXPECT_EQ(reader.offset(), 20u);
  EXPECT_EQ(reader.linesRead(), 2u);

  // Nothing new.
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->bytesRead, 0u);

  appendFile(path, "3000 10 c\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(sink.rewrites, 0);
  ASSERT_EQ(sink.entries.size(), 3u);
  EXPECT_EQ(sink.entries[2], std::make_pair(uint64_t(0x3000), std::string("c")));
  EXPECT_EQ(reader.linesRead(), 3u);
}

TEST(PerfMapReader, HalfWrittenLineStaysPendingUntilCompleted) {
  TempDir dir;
  std::string path = dir.file("perf-2.map");
  writeFile(path, "1000 10 a\n2000 10 hal");
  PerfMapReader reader(path);
  Recorder sink;
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(stats->pendingBytes, 11u); // "2000 10 hal"
  EXPECT_EQ(reader.offset(), 10u);

  // Still not terminated: nothing new, still pending.
  appendFile(path, "f");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->pendingBytes, 12u);

  appendFile(path, "\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(stats->pendingBytes, 0u);
  ASSERT_EQ(sink.entries.size(), 2u);
  EXPECT_EQ(sink.entries[1].second, "half");
}

TEST(PerfMapReader, OnlyPendingBytesThenCompleted) {
  TempDir dir;
  std::string path = dir.file("perf-3.map");
  writeFile(path, "1000 10 wait");
  PerfMapReader reader(path);
  Recorder sink;
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->entries, 0u);
  EXPECT_EQ(stats->pendingBytes, 12u);
  EXPECT_EQ(reader.offset(), 0u);
  appendFile(path, "ed\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  ASSERT_EQ(sink.entries.size(), 1u);
  EXPECT_EQ(sink.entries[0].second, "waited");
}

TEST(PerfMapReader, DiagnosticsHavePathAndLineAcrossReads) {
  TempDir dir;
  std::string path = dir.file("perf-4.map");
  writeFile(path, "1000 10 a\n\n");
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  appendFile(path, "2000 zz b\n3000 10 c\n");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(stats->malformed, 1u);
  EXPECT_EQ(stats->entries, 1u);
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_EQ(sink.diagnostics[0].file, path);
  EXPECT_EQ(sink.diagnostics[0].line, 3u);
  EXPECT_EQ(sink.diagnostics[0].str(), path + ":3: malformed size field 'zz'");
}

TEST(PerfMapReader, TruncationIsARewrite) {
  TempDir dir;
  std::string path = dir.file("perf-5.map");
  writeFile(path, lines(0, 50));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  ASSERT_EQ(sink.entries.size(), 50u);

  writeFile(path, "9000 10 fresh\n");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 1);
  ASSERT_EQ(sink.entries.size(), 1u);
  EXPECT_EQ(sink.entries[0].second, "fresh");
  EXPECT_EQ(reader.offset(), 14u);
  EXPECT_EQ(reader.linesRead(), 1u);
}

TEST(PerfMapReader, RewriteDuringTheReadIsCaughtAtItsEnd) {
  // The race HotSpot's `jcmd Compiler.perfmap` and a busy writer make: the
  // file passes the open's check, then is truncated and written again past
  // the old end before the new bytes are read. Those bytes are the new
  // content's: the read starts over, and only the new content is kept.
  TempDir dir;
  std::string path = dir.file("perf-6.map");
  writeFile(path, lines(0, 50));
  PerfMapReader reader(path);
  RewritingSink sink;
  sink.path = path;
  ASSERT_TRUE(bool(reader.read(sink)));
  appendFile(path, lines(50, 60));
  std::string fresh;
  for (int i = 0; i < 80; ++i)
    fresh += std::to_string(0x9000 + i * 16) + " 10 gen1_" + std::to_string(i) + "\n";
  sink.rewrite = fresh; // written between the open and the read
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 1);
  ASSERT_EQ(sink.entries.size(), 80u);
  for (const auto &entry : sink.entries)
    EXPECT_EQ(entry.second.rfind("gen1_", 0), 0u) << entry.second;
  EXPECT_EQ(reader.offset(), fresh.size());
}

TEST(PerfMapReader, TruncationToEmpty) {
  TempDir dir;
  std::string path = dir.file("perf-5e.map");
  writeFile(path, lines(0, 3));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  const size_t before = sink.entries.size();
  // Emptied to be written anew (jcmd Compiler.perfmap): nothing is read and
  // nothing forgotten yet.
  writeFile(path, "");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->emptied);
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(sink.entries.size(), before);
  // Written anew: now the old content is gone, and the new one is read.
  appendFile(path, "1000 10 back\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_FALSE(stats->emptied);
  ASSERT_EQ(sink.entries.size(), 1u);
  EXPECT_EQ(sink.entries[0].second, "back");
}

// Caught between the two writes of the first new line (the runtime wrote
// part of it): still nothing to replace the old names with.
TEST(PerfMapReader, TruncationToUnfinishedLine) {
  TempDir dir;
  std::string path = dir.file("perf-5f.map");
  writeFile(path, lines(0, 3));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  const size_t before = sink.entries.size();
  writeFile(path, "1000 10 ba");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->emptied);
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(stats->pendingBytes, 0u);
  EXPECT_EQ(sink.entries.size(), before);
  appendFile(path, "ck\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  ASSERT_EQ(sink.entries.size(), 1u);
  EXPECT_EQ(sink.entries[0].second, "back");
}

// Truncated right after a read took the appended lines, and caught before
// the new content's first line is whole: the old names stay (not a fresh,
// empty table), and the next read starts over.
TEST(PerfMapReader, TruncatedAfterTheReadToUnfinishedLine) {
  TempDir dir;
  std::string path = dir.file("perf-5g.map");
  writeFile(path, lines(0, 30));
  PerfMapReader reader(path);
  RewritingSink sink;
  sink.when = RewritingSink::AfterTheRead;
  sink.path = path;
  ASSERT_TRUE(bool(reader.read(sink)));
  appendFile(path, lines(30, 40));
  sink.rewrite = "1000 10 ba";
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->emptied);
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 0);
  EXPECT_EQ(sink.entries.size(), 40u);
  appendFile(path, "ck\n");
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 1);
  ASSERT_EQ(sink.entries.size(), 1u);
  EXPECT_EQ(sink.entries[0].second, "back");
}

TEST(PerfMapReader, SameSizeRewriteInPlaceDetected) {
  TempDir dir;
  std::string path = dir.file("perf-6.map");
  writeFile(path, lines(0, 20, "a"));
  struct stat before;
  ASSERT_EQ(::stat(path.c_str(), &before), 0);
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));

  std::string replacement = lines(0, 20, "b");
  ASSERT_EQ(replacement.size(), size_t(before.st_size));
  overwriteInPlace(path, replacement);
  struct stat after;
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  ASSERT_EQ(before.st_ino, after.st_ino);
  ASSERT_EQ(before.st_size, after.st_size);

  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 1);
  ASSERT_EQ(sink.entries.size(), 20u);
  EXPECT_EQ(sink.entries[0].second, "b0");
  EXPECT_EQ(sink.entries[19].second, "b19");
}

TEST(PerfMapReader, SameSizeRewriteChangingOnlyTheTail) {
  TempDir dir;
  std::string path = dir.file("perf-6t.map");
  std::string original = lines(0, 20, "a");
  writeFile(path, original);
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  std::string changed = original;
  changed[changed.size() - 2] = 'Z'; // last symbol's name: "a19" -> "a1Z"
  overwriteInPlace(path, changed);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  ASSERT_EQ(sink.entries.size(), 20u);
  EXPECT_EQ(sink.entries.back().second, "a1Z");
}

// Both ends unchanged, same size: only the modification time tells. The test
// moves it on by a second, as any write does (kernels keep it distinct from the
// time a reader saw, even within one clock tick).
TEST(PerfMapReader, SameSizeRewriteChangingOnlyTheMiddle) {
  TempDir dir;
  std::string path = dir.file("perf-6m.map");
  std::string original = lines(0, 40, "a");
  writeFile(path, original);
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  std::string changed = original;
  size_t middle = changed.find(" a20\n");
  ASSERT_NE(middle, std::string::npos);
  changed[middle + 1] = 'Z'; // "a20" -> "Z20"
  overwriteInPlace(path, changed);
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  struct timespec times[2] = {st.st_atim, st.st_mtim};
  times[1].tv_sec += 1;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  ASSERT_EQ(sink.entries.size(), 40u);
  EXPECT_EQ(sink.entries[20].second, "Z20");
  // Nothing written since: the next read is not a rewrite.
  auto again = reader.read(sink);
  ASSERT_TRUE(bool(again));
  EXPECT_FALSE(again->rewritten);
}

// Rewritten bigger with the same first and last bytes of what was read, but a
// different middle: the samples spread across the content catch it.
TEST(PerfMapReader, GrowingRewriteWithSameEndsDetected) {
  TempDir dir;
  std::string path = dir.file("perf-6g.map");
  writeFile(path, lines(0, 1000, "a"));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  std::string rewritten = lines(0, 300, "a") + lines(300, 700, "b") + lines(700, 1000, "a") +
                          lines(1000, 1010, "a");
  overwriteInPlace(path, rewritten);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  ASSERT_EQ(sink.entries.size(), 1010u);
  EXPECT_EQ(sink.entries[500].second, "b500");
}

TEST(PerfMapReader, BiggerRewriteWithDifferentHeadDetected) {
  TempDir dir;
  std::string path = dir.file("perf-7.map");
  writeFile(path, lines(0, 10, "old"));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  overwriteInPlace(path, lines(0, 40, "new")); // no truncation, grows the file
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(stats->entries, 40u);
  ASSERT_EQ(sink.entries.size(), 40u);
  EXPECT_EQ(sink.entries[0].second, "new0");
  EXPECT_EQ(reader.linesRead(), 40u);
}

TEST(PerfMapReader, AppendAfterRewriteIsIncrementalAgain) {
  TempDir dir;
  std::string path = dir.file("perf-7a.map");
  writeFile(path, lines(0, 10, "old"));
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  writeFile(path, lines(0, 5, "new"));
  ASSERT_TRUE(bool(reader.read(sink)));
  appendFile(path, lines(5, 6, "new"));
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_FALSE(stats->rewritten);
  EXPECT_EQ(stats->entries, 1u);
  EXPECT_EQ(sink.rewrites, 1);
  ASSERT_EQ(sink.entries.size(), 6u);
}

TEST(PerfMapReader, ReplacementByRenameDetected) {
  TempDir dir;
  std::string path = dir.file("perf-8.map");
  std::string content = lines(0, 5);
  writeFile(path, content);
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));

  // Identical bytes in a new file (new inode): still a different file.
  std::string tmp = dir.file("perf-8.map.tmp");
  writeFile(tmp, content + lines(5, 6));
  struct stat oldSt, newSt;
  ASSERT_EQ(::stat(path.c_str(), &oldSt), 0);
  ASSERT_EQ(::stat(tmp.c_str(), &newSt), 0);
  ASSERT_NE(oldSt.st_ino, newSt.st_ino); // both exist, so inodes differ
  ASSERT_EQ(::rename(tmp.c_str(), path.c_str()), 0);

  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  EXPECT_EQ(sink.rewrites, 1);
  EXPECT_EQ(stats->entries, 6u);
  EXPECT_EQ(sink.entries.size(), 6u);
}

TEST(PerfMapReader, LinesSpanningReadChunks) {
  // The reader reads 4 MiB at a time: lines crossing a chunk boundary and the
  // line count must come out the same.
  TempDir dir;
  std::string path = dir.file("perf-9.map");
  std::string text;
  constexpr int kLines = 300000; // ~ 9 MiB
  char buffer[96];
  for (int i = 0; i < kLines; ++i) {
    std::snprintf(buffer, sizeof(buffer), "%x %x LazyCompile:*function_%d /app.js:%d\n",
                  0x100000 + i * 0x40, 0x40, i, i);
    text += buffer;
  }
  ASSERT_GT(text.size(), size_t(8) << 20);
  writeFile(path, text);
  PerfMapReader reader(path);
  SymbolTable table;
  TableSink sink(table);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  sink.finish();
  EXPECT_EQ(stats->entries, uint64_t(kLines));
  EXPECT_EQ(stats->malformed, 0u);
  EXPECT_TRUE(sink.diagnostics.empty());
  EXPECT_EQ(stats->bytesRead, text.size());
  EXPECT_EQ(reader.linesRead(), uint64_t(kLines));
  EXPECT_EQ(table.size(), size_t(kLines));
  for (int i : {0, 1, 50000, 123456, kLines - 1}) {
    const Symbol *s = table.findByAddress(0x100000 + uint64_t(i) * 0x40 + 3);
    ASSERT_NE(s, nullptr) << i;
    EXPECT_EQ(table.name(*s), "LazyCompile:*function_" + std::to_string(i) + " /app.js:" +
                                  std::to_string(i));
  }
}

// A read this large is parsed in two parts on two threads: the result must be
// what one thread gives, line numbers, order of announcements and all.
TEST(PerfMapReader, NamesAreKeptWhereTheFileBytesWereRead) {
  TempDir dir;
  std::string path = dir.file("perf-3.map");
  const std::string text = "1000 10 first one\n2000 10 second\nzz bad\n3000 10 third\n";
  writeFile(path, text);
  PerfMapReader reader(path);
  SymbolTable table;
  TableSink sink(table);
  ASSERT_TRUE(bool(reader.read(sink)));
  std::string_view first = table.name(*table.findByAddress(0x1000));
  std::string_view third = table.name(*table.findByAddress(0x3000));
  EXPECT_EQ(first, "first one");
  EXPECT_EQ(third, "third");
  // No copy: the names sit as far apart as they do in the file.
  EXPECT_EQ(third.data() - first.data(),
            std::ptrdiff_t(text.find("third") - text.find("first one")));
}

TEST(PerfMapReader, LineLongerThanAReadChunkSpansTheSplit) {
  TempDir dir;
  std::string path = dir.file("perf-4.map");
  const std::string longName(9u << 20, 'x');
  writeFile(path, "1000 10 a\n2000 10 " + longName + "\n3000 10 c\n4000 10 half");
  PerfMapReader reader(path);
  SymbolTable table;
  TableSink sink(table);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << errorText(stats.takeError());
  EXPECT_EQ(stats->entries, 3u);
  EXPECT_EQ(stats->pendingBytes, std::string("4000 10 half").size());
  EXPECT_EQ(table.name(*table.findByAddress(0x2000)), longName.substr(0, kMaxSymbolNameBytes)); // cut, as every name
  EXPECT_EQ(table.name(*table.findByAddress(0x3000)), "c");
  appendFile(path, "-written\n");
  ASSERT_TRUE(bool(reader.read(sink)));
  EXPECT_EQ(table.name(*table.findByAddress(0x4000)), "half-written");
  EXPECT_EQ(table.name(*table.findByAddress(0x2000)), longName.substr(0, kMaxSymbolNameBytes));
}

TEST(PerfMapReader, TwoPartReadMatchesOneThread) {
  TempDir dir;
  std::string path = dir.file("perf-2.map");
  std::string text;
  constexpr int kLines = 600000; // ~ 12 MiB, split near line 300000
  char buffer[96];
  for (int i = 0; i < kLines; ++i) {
    if (i == 10 || i == 590000) {
      text += "zz 10 bad\n";
      continue;
    }
    // The last line reuses the range of line 5: the later announcement wins.
    uint64_t address = i == kLines - 1 ? 0x100000 + 5 * 0x40 : 0x100000 + uint64_t(i) * 0x40;
    std::snprintf(buffer, sizeof(buffer), "%llx 40 fn_%d\n",
                  static_cast<unsigned long long>(address), i);
    text += buffer;
  }
  text += "ffff0000 10 half-writ";
  ASSERT_GT(text.size(), size_t(8) << 20);
  writeFile(path, text);
  PerfMapReader reader(path);
  SymbolTable table;
  TableSink sink(table);
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << errorText(stats.takeError());
  sink.finish();
  EXPECT_EQ(stats->entries, uint64_t(kLines - 2));
  EXPECT_EQ(stats->malformed, 2u);
  EXPECT_EQ(stats->pendingBytes, std::string("ffff0000 10 half-writ").size());
  EXPECT_EQ(reader.linesRead(), uint64_t(kLines));
  ASSERT_EQ(sink.diagnostics.size(), 2u);
  EXPECT_EQ(sink.diagnostics[0].line, 11u);
  EXPECT_EQ(sink.diagnostics[1].line, 590001u);
  EXPECT_EQ(table.size(), size_t(kLines - 3)); // two bad lines, one replaced
  const Symbol *reused = table.findByAddress(0x100000 + 5 * 0x40);
  ASSERT_NE(reused, nullptr);
  EXPECT_EQ(table.name(*reused), "fn_" + std::to_string(kLines - 1));
  for (int i : {0, 299999, 300000, 300001, kLines - 2}) {
    const Symbol *s = table.findByAddress(0x100000 + uint64_t(i) * 0x40);
    ASSERT_NE(s, nullptr) << i;
    EXPECT_EQ(table.name(*s), "fn_" + std::to_string(i));
  }
  // The pending line completes on the next read, which is a one-part read.
  appendFile(path, "ten\n");
  auto next = reader.read(sink);
  ASSERT_TRUE(bool(next));
  EXPECT_EQ(next->entries, 1u);
  const Symbol *completed = table.findByAddress(0xffff0000);
  ASSERT_NE(completed, nullptr);
  EXPECT_EQ(table.name(*completed), "half-written");
}

TEST(PerfMapReader, SymlinkRefused) {
  TempDir dir;
  std::string target = dir.file("real.map");
  std::string link = dir.file("perf-10.map");
  writeFile(target, "1000 10 a\n");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  PerfMapReader reader(link);
  Recorder sink;
  const std::string message = readError(reader, sink);
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("symbolic link"), std::string::npos) << message;
  EXPECT_NE(message.find(link), std::string::npos) << message;
  EXPECT_TRUE(sink.entries.empty());
}

TEST(PerfMapReader, DirectoryRefused) {
  TempDir dir;
  std::string sub = dir.file("perf-11.map");
  ASSERT_EQ(::mkdir(sub.c_str(), 0700), 0);
  PerfMapReader reader(sub);
  Recorder sink;
  const std::string message = readError(reader, sink);
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("is not a regular file"), std::string::npos) << message;
}

TEST(PerfMapReader, FifoRefusedWithoutBlocking) {
  TempDir dir;
  std::string fifo = dir.file("perf-12.map");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  PerfMapReader reader(fifo);
  Recorder sink;
  const std::string message = readError(reader, sink);
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("is not a regular file"), std::string::npos) << message;
}

TEST(PerfMapReader, UntrustedOwnerRefused) {
  TempDir dir;
  std::string path = dir.file("perf-13.map");
  writeFile(path, "1000 10 a\n");
  if (::chown(path.c_str(), 12345, 12345) != 0)
    GTEST_SKIP() << "cannot chown (not running as root)";
  PerfMapReader reader(path, TrustPolicy{uid_t(54321)});
  Recorder sink;
  const std::string message = readError(reader, sink);
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find("--force"), std::string::npos) << message;
  EXPECT_NE(message.find("12345"), std::string::npos) << message;
  EXPECT_NE(message.find("54321"), std::string::npos) << message;
  EXPECT_TRUE(sink.entries.empty());

  // The expected owner, or no policy at all, is accepted.
  PerfMapReader owned(path, TrustPolicy{uid_t(12345)});
  EXPECT_TRUE(bool(owned.read(sink)));
  PerfMapReader anyone(path);
  EXPECT_TRUE(bool(anyone.read(sink)));
}

TEST(PerfMapReader, RootOwnedFileAlwaysTrusted) {
  TempDir dir;
  std::string path = dir.file("perf-14.map");
  writeFile(path, "1000 10 a\n");
  if (::chown(path.c_str(), 0, 0) != 0)
    GTEST_SKIP() << "cannot chown to root";
  PerfMapReader reader(path, TrustPolicy{uid_t(54321)});
  Recorder sink;
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats)) << errorText(stats.takeError());
  EXPECT_EQ(sink.entries.size(), 1u);
}

TEST(PerfMapReader, MissingFileNamesThePath) {
  TempDir dir;
  std::string path = dir.file("perf-404.map");
  PerfMapReader reader(path);
  Recorder sink;
  const std::string message = readError(reader, sink);
  ASSERT_FALSE(message.empty());
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("No such file"), std::string::npos) << message;
}

TEST(PerfMapReader, FileDeletedAfterReadIsAnError) {
  TempDir dir;
  std::string path = dir.file("perf-15.map");
  writeFile(path, "1000 10 a\n");
  PerfMapReader reader(path);
  Recorder sink;
  ASSERT_TRUE(bool(reader.read(sink)));
  ASSERT_EQ(::unlink(path.c_str()), 0);
  auto stats = reader.read(sink);
  EXPECT_FALSE(bool(stats));
  if (!stats)
    llvm::consumeError(stats.takeError());
}

TEST(TableSink, RewriteYieldsOnlyRealDifferences) {
  TempDir dir;
  std::string path = dir.file("perf-16.map");
  writeFile(path, "1000 10 same\n"
                  "2000 10 old-name\n"
                  "3000 10 dropped\n"
                  "4000 10 same-too\n");
  SymbolTable table;
  TableSink sink(table);
  PerfMapReader reader(path);
  ASSERT_TRUE(bool(reader.read(sink)));
  sink.finish();
  SymbolChanges first = table.takeChanges();
  EXPECT_EQ(first.added.size(), 4u);

  // HotSpot's Compiler.perfmap rewrites the whole file.
  writeFile(path, "1000 10 same\n"
                  "2000 10 new-name\n"
                  "4000 10 same-too\n"
                  "5000 10 added\n");
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  // Until finish(), the table still holds the old content.
  EXPECT_EQ(table.name(*table.findByAddress(0x2000)), "old-name");
  sink.finish();
  EXPECT_EQ(table.size(), 4u);
  EXPECT_EQ(table.name(*table.findByAddress(0x2000)), "new-name");
  EXPECT_EQ(table.findByAddress(0x3000), nullptr);

  SymbolChanges changes = table.takeChanges();
  std::vector<uint64_t> removed;
  for (const RemovedRange &r : changes.removed)
    removed.push_back(r.address);
  std::sort(removed.begin(), removed.end());
  EXPECT_EQ(removed, (std::vector<uint64_t>{0x2000, 0x3000}));
  std::vector<std::string> added;
  for (const Symbol *s : changes.added)
    added.emplace_back(table.name(*s));
  EXPECT_EQ(added, (std::vector<std::string>{"new-name", "added"}));

  // An identical rewrite (new inode, same bytes) changes nothing.
  std::string same = "1000 10 same\n2000 10 new-name\n4000 10 same-too\n5000 10 added\n";
  std::string tmp = dir.file("perf-16.tmp");
  writeFile(tmp, same);
  ASSERT_EQ(::rename(tmp.c_str(), path.c_str()), 0);
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->rewritten);
  sink.finish();
  EXPECT_TRUE(table.takeChanges().empty());
  EXPECT_EQ(table.size(), 4u);
}

TEST(TableSink, AppendsGoStraightToTheTable) {
  TempDir dir;
  std::string path = dir.file("perf-17.map");
  writeFile(path, "1000 10 a\nzz 10 bad\n");
  SymbolTable table;
  TableSink sink(table);
  PerfMapReader reader(path);
  ASSERT_TRUE(bool(reader.read(sink)));
  EXPECT_EQ(table.size(), 1u); // no finish() needed without a rewrite
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_EQ(sink.diagnostics[0].line, 2u);
  appendFile(path, "1008 10 overlaps\n");
  ASSERT_TRUE(bool(reader.read(sink)));
  sink.finish();
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(table.name(*table.findByAddress(0x1008)), "overlaps");
}

TEST(TableSink, AppendedBatchReplacingItsOwnEntryStillRemovesOldSymbol) {
  // Regression test for a fixed bug: end-to-end form of SymbolTable DeadBatchSymbolStillRemovesLiveOne.
  // "1000 100 D" reuses L's memory and is itself replaced by "1080 10 K" in the
  // same appended chunk; SymbolTable::flush keeps L because only batch
  // survivors remove live symbols, so 0x1000 still symbolizes as "L".
  TempDir dir;
  std::string path = dir.file("perf-18.map");
  writeFile(path, "1000 10 L\n");
  SymbolTable table;
  TableSink sink(table);
  PerfMapReader reader(path);
  ASSERT_TRUE(bool(reader.read(sink)));
  table.takeChanges(); // the debugger syncs
  appendFile(path, "1000 100 D\n1080 10 K\n");
  ASSERT_TRUE(bool(reader.read(sink)));
  sink.finish();
  EXPECT_EQ(table.findByAddress(0x1000), nullptr);
  EXPECT_EQ(table.size(), 1u);
}

// Interrupted between chunks, the reader keeps the complete lines it parsed and
// the next read goes on from there: nothing lost, nothing read twice.
TEST(PerfMapReader, InterruptedReadGoesOnFromWhereItStopped) {
  TempDir dir;
  const std::string path = dir.file("perf-9.map");
  const int total = 400000; // ~7 MiB: two 4 MiB chunks on one thread
  writeFile(path, lines(0, total));
  PerfMapReader reader(path);
  Recorder sink;
  int asked = 0;
  auto stats = reader.read(sink, [&] { return ++asked >= 1; });
  ASSERT_TRUE(bool(stats));
  EXPECT_TRUE(stats->interrupted);
  EXPECT_GT(sink.entries.size(), 0u);
  EXPECT_LT(sink.entries.size(), size_t(total));
  EXPECT_EQ(reader.offset(), stats->bytesRead);
  const size_t first = sink.entries.size();
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_FALSE(stats->interrupted);
  ASSERT_EQ(sink.entries.size(), size_t(total));
  for (int i = 0; i < total; ++i)
    ASSERT_EQ(sink.entries[i].second, "f" + std::to_string(i)) << "after " << first;
  EXPECT_EQ(sink.rewrites, 0);
}

// A line with no newline past kMaxLineBytes is reported and skipped once, not
// held and read again at every read; what follows is read normally.
TEST(PerfMapReader, EndlessLineIsSkippedNotHeld) {
  TempDir dir;
  const std::string path = dir.file("perf-10.map");
  writeFile(path, lines(0, 2) + "20000 10 " +
                      std::string(PerfMapReader::kMaxLineBytes + 10, 'n'));
  PerfMapReader reader(path);
  Recorder sink;
  auto stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  EXPECT_EQ(sink.entries.size(), 2u);
  EXPECT_EQ(stats->pendingBytes, 0u);
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_EQ(sink.diagnostics[0].line, 3u);
  EXPECT_NE(sink.diagnostics[0].message.find("over 1 MiB with no newline"), std::string::npos)
      << sink.diagnostics[0].message;
  appendFile(path, "\n" + lines(2, 3));
  stats = reader.read(sink);
  ASSERT_TRUE(bool(stats));
  ASSERT_EQ(sink.entries.size(), 3u);
  EXPECT_EQ(sink.entries[2].second, "f2");
}
