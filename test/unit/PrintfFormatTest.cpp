// printf's text from a format and raw 64-bit arguments, as the compile watch
// makes it at an fprintf call: compared with the C library's own snprintf.
#include "jitsym/formats/PrintfFormat.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace jitsym;

namespace {

std::optional<std::string> format(const char *text, std::vector<uint64_t> args,
                                  std::map<uint64_t, std::string> strings = {}) {
  return formatPrintf(
      text,
      [&](size_t i) -> std::optional<uint64_t> {
        if (i >= args.size())
          return std::nullopt;
        return args[i];
      },
      [&](uint64_t address) -> std::optional<std::string> {
        auto found = strings.find(address);
        if (found == strings.end())
          return std::nullopt;
        return found->second;
      });
}

template <typename... Args> std::string libc(const char *text, Args... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, text, args...);
  return buffer;
}

} // namespace

TEST(PrintfFormat, MonoJitmapLine) {
  // mono --jitmap: fprintf(perf_map_file, "%llx %x %s\n", start, size, name)
  EXPECT_EQ(format("%llx %x %s\n", {0x40000200, 0x257, 0x1000}, {{0x1000, "Busy:Leaf (int)"}}),
            std::optional<std::string>("40000200 257 Busy:Leaf (int)\n"));
}

TEST(PrintfFormat, IntegersAsTheCLibraryPrintsThem) {
  const uint64_t minusSeven = static_cast<uint64_t>(-7LL);
  const uint32_t minusSeven32 = static_cast<uint32_t>(-7);
  EXPECT_EQ(*format("%d|%i|%u", {minusSeven32, 42, minusSeven32}), libc("%d|%i|%u", -7, 42, -7));
  EXPECT_EQ(*format("%ld|%lld|%zu", {minusSeven, minusSeven, 123}),
            libc("%ld|%lld|%zu", -7L, -7LL, size_t{123}));
  // a 32-bit conversion takes the register's low half only
  EXPECT_EQ(*format("%x|%X|%lx", {0xdeadbeefcafef00dULL, 0xabcULL, 0xdeadbeefcafef00dULL}),
            libc("%x|%X|%lx", 0xcafef00du, 0xabcu, 0xdeadbeefcafef00dUL));
  EXPECT_EQ(*format("%hhx|%hd|%o|%#o|%#x|%#x", {0x1ff, 0x18000, 8, 8, 255, 0}),
            libc("%hhx|%hd|%o|%#o|%#x|%#x", 0x1ff, 0x18000, 8u, 8u, 255u, 0u));
  EXPECT_EQ(*format("[%8x][%-8x][%08x][%+d][% d][%.5d][%8.3x][%.0d]", {255, 255, 255, 5, 5, 42, 10, 0}),
            libc("[%8x][%-8x][%08x][%+d][% d][%.5d][%8.3x][%.0d]", 255u, 255u, 255u, 5, 5, 42,
                 10u, 0));
  EXPECT_EQ(*format("%016lx %p %p", {0x7f00, 0x7f00, 0}),
            libc("%016lx %p %p", 0x7f00UL, reinterpret_cast<void *>(0x7f00), nullptr));
}

TEST(PrintfFormat, StringsCharactersAndPercent) {
  EXPECT_EQ(*format("%s|%.3s|%-6s|%6s|%c|%%|%s", {1, 1, 2, 2, 'x', 0}, {{1, "abcdef"}, {2, "ab"}}),
            libc("%s|%.3s|%-6s|%6s|%c|%%|%s", "abcdef", "abcdef", "ab", "ab", 'x', "(null)"));
}

TEST(PrintfFormat, WhatItCannotMakeIsNoText) {
  EXPECT_FALSE(format("%f\n", {0}));              // floating point: not in these registers
  EXPECT_FALSE(format("%*d\n", {3, 4}));          // a width from the arguments
  EXPECT_FALSE(format("%n", {0}));                // writes, prints nothing
  EXPECT_FALSE(format("%1$d", {0}));              // positional
  EXPECT_FALSE(format("%x %x", {1}));             // an argument that cannot be read
  EXPECT_FALSE(format("%s", {9}, {}));            // a string that cannot be read
  EXPECT_FALSE(format("ends in %", {}));          // a cut format
  EXPECT_FALSE(format("%99999999d", {1}));        // a text over the limit
  EXPECT_EQ(format("no conversions\n", {}), std::optional<std::string>("no conversions\n"));
}
