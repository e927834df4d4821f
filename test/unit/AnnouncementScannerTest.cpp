// The write filter's reading of perf map and jitdump writes
// (core formats/AnnouncementScanner.h): what it calls the debugger for.
#include "jitsym/formats/AnnouncementScanner.h"

#include <gtest/gtest.h>

#include <cstring>

#include "jitsym/formats/JitdumpWriter.h"

using jitsym::encodeWatchList;
using jitsym::JitdumpScanner;
using jitsym::PerfMapScanner;

namespace {

const jitsym_watch_list kLeafOnly = encodeWatchList({"leaf"}, {0x9000}, false);

std::string jitdumpWith(std::initializer_list<std::pair<const char *, uint64_t>> functions) {
  std::string out;
  jitsym::appendJitdumpHeader(out, {62, 1, 0});
  uint64_t index = 0;
  for (const auto &[name, address] : functions) {
    jitsym::appendDebugInfo(out, 1, address, {{address, 3, 1, "app.js"}});
    jitsym::appendCodeLoad(out, 2, {1, 1, address, index++, name, std::string(32, '\x90')});
  }
  return out;
}

} // namespace

TEST(PerfMapScanner, OnlyLinesOfWantedCodeAreWanted) {
  PerfMapScanner scanner;
  EXPECT_FALSE(scanner.add("1000 20 JS:*middle /app.js:3:1\n", kLeafOnly));
  EXPECT_TRUE(scanner.add("2000 20 JS:*leaf /app.js:1:1\n", kLeafOnly));
  EXPECT_TRUE(scanner.add("8ff0 20 Builtin:Other\n", kLeafOnly)); // over the location
}

TEST(PerfMapScanner, ALineInPiecesIsDecidedWhenWhole) {
  PerfMapScanner scanner;
  EXPECT_FALSE(scanner.add("2000 20 JS:*le", kLeafOnly));
  EXPECT_FALSE(scanner.add("af /app.js:1:1", kLeafOnly));
  EXPECT_TRUE(scanner.add("\n3000 10 other\n", kLeafOnly));
  EXPECT_FALSE(scanner.add("3000 10 other\n4000 10 another\n", kLeafOnly));
}

TEST(PerfMapScanner, AMalformedLineIsWantedSoTheReaderSaysWhy) {
  PerfMapScanner scanner;
  EXPECT_TRUE(scanner.add("zz 10 broken\n", kLeafOnly));
  EXPECT_FALSE(scanner.add("\n  \n", kLeafOnly)); // blank lines are nothing
}

TEST(JitdumpScanner, ACodeLoadIsDecidedAtItsLastByte) {
  const std::string stream = jitdumpWith({{"JS:*middle", 0x1000}, {"JS:*leaf", 0x2000}});
  JitdumpScanner scanner;
  ASSERT_TRUE(scanner.resumeAt(0, {}));
  // Byte by byte, as a runtime might write it: wanted once, at the end.
  int wanted = 0;
  size_t at = 0;
  for (; at < stream.size(); ++at)
    if (scanner.add(stream.substr(at, 1), kLeafOnly)) {
      ++wanted;
      break;
    }
  EXPECT_EQ(wanted, 1);
  EXPECT_EQ(at, stream.size() - 1);
}

TEST(JitdumpScanner, ResumesInTheMiddleOfARecord) {
  const std::string stream = jitdumpWith({{"JS:*middle", 0x1000}, {"JS:*leaf", 0x2000}});
  const uint64_t split = stream.size() - 20; // inside the leaf's code bytes
  JitdumpScanner scanner;
  ASSERT_TRUE(scanner.resumeAt(split, [&](uint64_t offset, size_t size, char *out) {
    if (offset + size > split)
      return false;
    std::memcpy(out, stream.data() + offset, size);
    return true;
  }));
  EXPECT_TRUE(scanner.add(std::string_view(stream).substr(split), kLeafOnly));
}

TEST(JitdumpScanner, AMovedCodeOverALocationIsWanted) {
  std::string stream;
  jitsym::appendJitdumpHeader(stream, {62, 1, 0});
  JitdumpScanner scanner;
  ASSERT_TRUE(scanner.resumeAt(0, {}));
  EXPECT_FALSE(scanner.add(stream, kLeafOnly));
  jitsym::jr_code_move move{};
  move.p.id = static_cast<uint32_t>(jitsym::JitdumpRecordId::CodeMove);
  move.p.total_size = sizeof move;
  move.old_code_addr = 0x1000;
  move.new_code_addr = 0x8f00;
  move.code_size = 0x200; // over 0x9000
  const std::string_view record(reinterpret_cast<const char *>(&move), sizeof move);
  EXPECT_TRUE(scanner.add(record, kLeafOnly));
  // The location moves with its code (V8 compacting its code space).
  move.old_code_addr = 0x8f00;
  move.new_code_addr = 0x20000;
  EXPECT_TRUE(scanner.add(record, kLeafOnly));
  move.old_code_addr = 0x10000;
  EXPECT_FALSE(scanner.add(record, kLeafOnly));
}

TEST(JitdumpScanner, AStreamItCannotFollowWantsEverything) {
  JitdumpScanner scanner;
  ASSERT_TRUE(scanner.resumeAt(0, {}));
  EXPECT_TRUE(scanner.add(std::string(64, 'x'), kLeafOnly)); // no jitdump header
  EXPECT_TRUE(scanner.add("more", kLeafOnly));
}
