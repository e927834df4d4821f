// Perf map line and chunk parsing: both hex forms, names with blanks, CRLF,
// malformed fields with their messages, and the half-written last line.
#include "jitsym/formats/PerfMapParser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

using namespace jitsym;

namespace {

struct Parsed {
  bool ok = false;
  PerfMapEntry entry;
  std::string error;
};

Parsed parseLine(std::string_view line) {
  Parsed p;
  p.ok = parsePerfMapLine(line, p.entry, p.error);
  return p;
}

struct OwnedEntry {
  uint64_t address, size;
  std::string name;
};

struct ChunkRun {
  PerfMapChunkResult result;
  std::vector<OwnedEntry> entries;
  std::vector<std::pair<uint64_t, std::string>> errors;
};

ChunkRun parseChunk(std::string_view bytes, uint64_t firstLine = 1) {
  ChunkRun run;
  run.result = parsePerfMapChunk(
      bytes, firstLine,
      [&](const PerfMapEntry &e) {
        run.entries.push_back({e.address, e.size, std::string(e.name)});
      },
      [&](uint64_t line, std::string message) {
        run.errors.emplace_back(line, std::move(message));
      });
  return run;
}

} // namespace

TEST(PerfMapParser, NodeBareHex) {
  Parsed p = parseLine("7f3a2c001000 1a0 JS:*fn /a.js:2:16");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0x7f3a2c001000u);
  EXPECT_EQ(p.entry.size, 0x1a0u);
  EXPECT_EQ(p.entry.name, "JS:*fn /a.js:2:16");
}

TEST(PerfMapParser, HotSpotZeroPaddedHex) {
  Parsed p = parseLine("0x00007f8e5c0a1b40 0x0000000000000120 long Hot.work(int)");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0x00007f8e5c0a1b40u);
  EXPECT_EQ(p.entry.size, 0x120u);
  EXPECT_EQ(p.entry.name, "long Hot.work(int)");
}

TEST(PerfMapParser, UpperCaseDigitsAndPrefix) {
  Parsed p = parseLine("0X7F00ABCD 0XFF Name");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0x7f00abcdu);
  EXPECT_EQ(p.entry.size, 0xffu);
}

TEST(PerfMapParser, NameKeepsInnerSpacesAndUtf8) {
  Parsed p = parseLine("1000 10 Stub:  größe  \xe2\x9c\x93 λ(x)");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.name, "Stub:  größe  \xe2\x9c\x93 λ(x)");
}

TEST(PerfMapParser, TrailingBlanksAreTrimmedFromName) {
  Parsed p = parseLine("1000 10 name with end  \t ");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.name, "name with end");
}

TEST(PerfMapParser, CrlfLineEnding) {
  Parsed p = parseLine("7f3a2c001000 1a0 JS:*fn\r");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.name, "JS:*fn");
}

TEST(PerfMapParser, TabsSeparateFields) {
  Parsed p = parseLine("\t7f00\t\t20\tinner\tname");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0x7f00u);
  EXPECT_EQ(p.entry.size, 0x20u);
  EXPECT_EQ(p.entry.name, "inner\tname");
}

TEST(PerfMapParser, ZeroSizeAccepted) {
  Parsed p = parseLine("4000 0 empty");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.size, 0u);
}

TEST(PerfMapParser, MalformedAddress) {
  Parsed p = parseLine("7g00 10 x");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed address field '7g00'");
}

TEST(PerfMapParser, MalformedSize) {
  Parsed p = parseLine("7f00 zz name");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed size field 'zz'");
}

TEST(PerfMapParser, BarePrefixIsNotANumber) {
  Parsed p = parseLine("0x 10 name");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed address field '0x'");
  p = parseLine("1000 0x name");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed size field '0x'");
}

TEST(PerfMapParser, NegativeOrDecimalJunkRejected) {
  EXPECT_FALSE(parseLine("-1000 10 name").ok);
  EXPECT_FALSE(parseLine("1000 -10 name").ok);
  EXPECT_FALSE(parseLine("1000 10,5 name").ok);
}

TEST(PerfMapParser, LongFieldIsShortenedInMessage) {
  std::string junk(100, 'q');
  Parsed p = parseLine(junk + " 10 name");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed address field '" + std::string(40, 'q') + "...'");
}

TEST(PerfMapParser, MissingName) {
  Parsed p = parseLine("7f00 10");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "missing symbol name");
  p = parseLine("7f00 10 \t \r");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "missing symbol name");
}

TEST(PerfMapParser, MissingSize) {
  Parsed p = parseLine("7f00");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "missing size field");
  p = parseLine("7f00   ");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "missing size field");
}

TEST(PerfMapParser, SixteenDigitsFitSeventeenSignificantDoNot) {
  Parsed p = parseLine("ffffffffffffff00 ff top");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0xffffffffffffff00u);
  // Leading zeros beyond 16 digits do not overflow.
  p = parseLine("0x000000000000000001000 10 padded");
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.entry.address, 0x1000u);
  p = parseLine("10000000000000000 10 toolong");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed address field '10000000000000000'");
  p = parseLine("1000 1ffffffffffffffff big");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "malformed size field '1ffffffffffffffff'");
}

TEST(PerfMapParser, RangeOverflowRejected) {
  Parsed p = parseLine("ffffffffffffff00 100 wraps");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.error, "symbol range overflows the address space");
  // Ending exactly at the top of the address space is fine.
  p = parseLine("ffffffffffffff00 ff fits");
  EXPECT_TRUE(p.ok) << p.error;
}

TEST(PerfMapParserChunk, SkipsBlankLinesAndCountsThem) {
  ChunkRun run = parseChunk("\n1000 10 a\n\r\n\n2000 20 b\r\n");
  ASSERT_EQ(run.entries.size(), 2u);
  EXPECT_EQ(run.entries[0].name, "a");
  EXPECT_EQ(run.entries[1].name, "b");
  EXPECT_EQ(run.entries[1].address, 0x2000u);
  EXPECT_TRUE(run.errors.empty());
  EXPECT_EQ(run.result.linesConsumed, 5u);
  EXPECT_EQ(run.result.bytesConsumed, std::string("\n1000 10 a\n\r\n\n2000 20 b\r\n").size());
}

TEST(PerfMapParserChunk, HalfWrittenLastLineIsNotConsumed) {
  std::string text = "1000 10 a\n2000 20 b\n3000 30 hal";
  ChunkRun run = parseChunk(text);
  ASSERT_EQ(run.entries.size(), 2u);
  EXPECT_EQ(run.result.linesConsumed, 2u);
  EXPECT_EQ(run.result.bytesConsumed, text.find("3000"));
  // Completing it later makes it a symbol.
  ChunkRun rest = parseChunk(text.substr(run.result.bytesConsumed) + "f\n", 3);
  ASSERT_EQ(rest.entries.size(), 1u);
  EXPECT_EQ(rest.entries[0].name, "half");
  EXPECT_EQ(rest.result.linesConsumed, 1u);
}

TEST(PerfMapParserChunk, OnlyAPartialLineConsumesNothing) {
  ChunkRun run = parseChunk("7f00 10 never-finished");
  EXPECT_TRUE(run.entries.empty());
  EXPECT_TRUE(run.errors.empty());
  EXPECT_EQ(run.result.bytesConsumed, 0u);
  EXPECT_EQ(run.result.linesConsumed, 0u);
}

TEST(PerfMapParserChunk, EmptyInput) {
  ChunkRun run = parseChunk("");
  EXPECT_EQ(run.result.bytesConsumed, 0u);
  EXPECT_EQ(run.result.linesConsumed, 0u);
}

TEST(PerfMapParserChunk, ErrorsCarryLineNumbersFromFirstLine) {
  std::string text = "1000 10 ok\n"
                     "7f00 zz bad\n"
                     "\n"
                     "nothex 10 x\n"
                     "3000 10\n"
                     "4000 10 fine\n";
  ChunkRun run = parseChunk(text, 100);
  ASSERT_EQ(run.entries.size(), 2u);
  ASSERT_EQ(run.errors.size(), 3u);
  EXPECT_EQ(run.errors[0], std::make_pair(uint64_t(101), std::string("malformed size field 'zz'")));
  EXPECT_EQ(run.errors[1], std::make_pair(uint64_t(103), std::string("malformed address field 'nothex'")));
  EXPECT_EQ(run.errors[2], std::make_pair(uint64_t(104), std::string("missing symbol name")));
  EXPECT_EQ(run.result.linesConsumed, 6u);
  EXPECT_EQ(run.result.bytesConsumed, text.size());
}

TEST(PerfMapParserChunk, EntriesPointIntoTheBuffer) {
  std::string text = "1000 10 inside\n";
  const char *begin = text.data(), *end = text.data() + text.size();
  bool inside = false;
  parsePerfMapChunk(
      text, 1,
      [&](const PerfMapEntry &e) {
        inside = e.name.data() >= begin && e.name.data() + e.name.size() <= end;
      },
      [](uint64_t, std::string) {});
  EXPECT_TRUE(inside);
}

TEST(PerfMapParserChunk, NulBytesInNameAreKept) {
  std::string text("1000 10 a\0b\n", 12);
  ChunkRun run = parseChunk(text);
  ASSERT_EQ(run.entries.size(), 1u);
  EXPECT_EQ(run.entries[0].name, std::string("a\0b", 3));
}
