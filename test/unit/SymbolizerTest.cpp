// Address description and symbolication of free text.
#include "jitsym/symbols/Symbolizer.h"

#include <gtest/gtest.h>

#include <string>

using namespace jitsym;

namespace {

SymbolTable makeTable() {
  SymbolTable t;
  t.add(0x7f3a2c001000, 0x1a0, "JS:*fn /a.js:2:16");
  t.add(0x7f3a2c002000, 0x100, "long Hot.work(int)");
  t.add(0x00000000deadbeef, 0x10, "low");
  return t;
}

} // namespace

TEST(Symbolizer, DescribeAddress) {
  SymbolTable t = makeTable();
  EXPECT_EQ(describeAddress(t, 0x7f3a2c001000), "JS:*fn /a.js:2:16");
  EXPECT_EQ(describeAddress(t, 0x7f3a2c001010), "JS:*fn /a.js:2:16+0x10");
  EXPECT_EQ(describeAddress(t, 0x7f3a2c00119f), "JS:*fn /a.js:2:16+0x19f");
  EXPECT_EQ(describeAddress(t, 0x7f3a2c0011a0), std::nullopt);
  EXPECT_EQ(describeAddress(t, 0x7f3a2c000fff), std::nullopt);
  EXPECT_EQ(describeAddress(t, 0), std::nullopt);
}

TEST(Symbolizer, ParseAddress) {
  EXPECT_EQ(parseAddress("0x7f3a2c001000"), 0x7f3a2c001000u);
  EXPECT_EQ(parseAddress("0X7F3A2C001000"), 0x7f3a2c001000u);
  EXPECT_EQ(parseAddress("7f3a2c001000"), 0x7f3a2c001000u);
  EXPECT_EQ(parseAddress("0"), 0u);
  EXPECT_EQ(parseAddress("ffffffffffffffff"), UINT64_MAX);
  EXPECT_EQ(parseAddress("0xffffffffffffffff"), UINT64_MAX);
  EXPECT_EQ(parseAddress(""), std::nullopt);
  EXPECT_EQ(parseAddress("0x"), std::nullopt);
  EXPECT_EQ(parseAddress("1ffffffffffffffff"), std::nullopt); // 17 digits
  EXPECT_EQ(parseAddress("7f3g"), std::nullopt);
  EXPECT_EQ(parseAddress(" 7f3a"), std::nullopt);
  EXPECT_EQ(parseAddress("7f3a "), std::nullopt);
  EXPECT_EQ(parseAddress("-1"), std::nullopt);
}

TEST(Symbolizer, SymbolicatesCrashLog) {
  SymbolTable t = makeTable();
  std::string log =
      "Thread 0 crashed\n"
      "#0 0x00007f3a2c001010 in ??\n"
      "#1 0x7f3a2c002004 (unknown)\n"
      "#2 7f3a2c001000\n"
      "#3 0x0000555555554000 in main\n"
      "exit code 42 at cafe with deadbeefcafe_x and x7f3a2c001010\n";
  std::string expected =
      "Thread 0 crashed\n"
      "#0 0x00007f3a2c001010 JS:*fn /a.js:2:16+0x10 in ??\n"
      "#1 0x7f3a2c002004 long Hot.work(int)+0x4 (unknown)\n"
      "#2 7f3a2c001000 JS:*fn /a.js:2:16\n"
      "#3 0x0000555555554000 in main\n"
      "exit code 42 at cafe with deadbeefcafe_x and x7f3a2c001010\n";
  EXPECT_EQ(symbolicateText(t, log), expected);
}

TEST(Symbolizer, AddressesAtStartAndEndOfText) {
  SymbolTable t = makeTable();
  EXPECT_EQ(symbolicateText(t, "7f3a2c001010"), "7f3a2c001010 JS:*fn /a.js:2:16+0x10");
  EXPECT_EQ(symbolicateText(t, "0x7f3a2c001010 x"), "0x7f3a2c001010 JS:*fn /a.js:2:16+0x10 x");
  EXPECT_EQ(symbolicateText(t, "at 0x7f3a2c002000"), "at 0x7f3a2c002000 long Hot.work(int)");
  EXPECT_EQ(symbolicateText(t, "pc=0x7f3a2c002000,"), "pc=0x7f3a2c002000 long Hot.work(int),");
  EXPECT_EQ(symbolicateText(t, "[7f3a2c002000]"), "[7f3a2c002000 long Hot.work(int)]");
  EXPECT_EQ(symbolicateText(t, ""), "");
}

TEST(Symbolizer, BareHexNeedsEightDigitsAndWholeWord) {
  SymbolTable t;
  t.add(0, 0x100000000, "everything-low"); // covers every short number
  // Short bare numbers and hex-looking words are left alone.
  EXPECT_EQ(symbolicateText(t, "42 cafe beef 1234567"), "42 cafe beef 1234567");
  // Eight bare digits are an address.
  EXPECT_EQ(symbolicateText(t, "deadbeef"), "deadbeef everything-low+0xdeadbeef");
  // Prefixed numbers of any length are addresses.
  EXPECT_EQ(symbolicateText(t, "0x42"), "0x42 everything-low+0x42");
  // Hex runs that continue into a word are not.
  EXPECT_EQ(symbolicateText(t, "deadbeefcafe_x 0x42g 12345678z"), "deadbeefcafe_x 0x42g 12345678z");
  // Inside a word, not at its start.
  EXPECT_EQ(symbolicateText(t, "id_deadbeef g12345678"), "id_deadbeef g12345678");
}

TEST(Symbolizer, TooLongHexIsNotAnAddress) {
  SymbolTable t;
  t.add(0, UINT64_MAX, "all");
  EXPECT_EQ(symbolicateText(t, "12345678123456789"), "12345678123456789");
  EXPECT_EQ(symbolicateText(t, "0x12345678123456789"), "0x12345678123456789");
  EXPECT_EQ(symbolicateText(t, "1234567812345678"), "1234567812345678 all+0x1234567812345678");
}

TEST(Symbolizer, UnknownAddressesAndNonAsciiPassThrough) {
  SymbolTable t = makeTable();
  std::string text = "größe 0x1 \xff\xfe 0x7f3a2c009999 λ";
  EXPECT_EQ(symbolicateText(t, text), text);
}

TEST(Symbolizer, SeveralOnOneLine) {
  SymbolTable t = makeTable();
  EXPECT_EQ(symbolicateText(t, "0x7f3a2c001001 0x7f3a2c002001"),
            "0x7f3a2c001001 JS:*fn /a.js:2:16+0x1 0x7f3a2c002001 long Hot.work(int)+0x1");
}
