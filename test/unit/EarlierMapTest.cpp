// A stale perf map told from the new process's own lines.
#include "jitsym/files/EarlierMap.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "TempDir.h"

using namespace jitsym;
using jitsym::test::TempDir;

namespace {

void write(const std::string &path, const std::string &text, bool append) {
  std::ofstream out(path, append ? std::ios::app : std::ios::trunc);
  out << text;
}

// Past the file system's timestamp granularity (the kernel's coarse clock).
void laterTick() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

// A map an earlier process left: `text` at `path`, as the search remembers it.
EarlierMap leftBehind(const std::string &path, const std::string &text) {
  write(path, text, false);
  std::optional<EarlierMap> earlier = earlierMap(path);
  EXPECT_TRUE(earlier.has_value());
  laterTick();
  return earlier.value_or(EarlierMap{});
}

} // namespace

TEST(EarlierMap, AppendedToStillBeginsWithTheEarlierLines) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  const EarlierMap earlier = leftBehind(path, "1000 10 old\n");
  EXPECT_EQ(earlier.bytes, 12u);
  EXPECT_TRUE(stillBeginsWith(earlier)) << "untouched";
  write(path, "2000 10 new\n", true);
  EXPECT_TRUE(stillBeginsWith(earlier));
}

TEST(EarlierMap, RewrittenIsNotEvenWithTheSameBytes) {
  // Other lines; or the same (a deterministic program run again under the same
  // PID writes what the earlier one did: same bytes and size, a later time).
  for (const std::string rewritten : {"3000 10 other\n", "1000 10 same\n"}) {
    TempDir dir;
    const std::string path = dir.file("perf-7.map");
    const EarlierMap earlier = leftBehind(path, "1000 10 same\n");
    write(path, rewritten, false);
    EXPECT_FALSE(stillBeginsWith(earlier)) << rewritten;
  }
}

TEST(EarlierMap, GoneIsNot) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  const EarlierMap earlier = leftBehind(path, "1000 10 old\n");
  std::remove(path.c_str());
  EXPECT_FALSE(stillBeginsWith(earlier));
  EXPECT_FALSE(earlierMap(path).has_value());
}
