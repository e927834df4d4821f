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

} // namespace

TEST(EarlierMap, AppendedToStillBeginsWithTheEarlierLines) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  write(path, "1000 10 old\n", false);
  std::optional<EarlierMap> earlier = earlierMap(path);
  ASSERT_TRUE(earlier.has_value());
  EXPECT_EQ(earlier->bytes, 12u);
  EXPECT_TRUE(stillBeginsWith(*earlier)) << "untouched";
  laterTick();
  write(path, "2000 10 new\n", true);
  EXPECT_TRUE(stillBeginsWith(*earlier));
}

TEST(EarlierMap, RewrittenIsNot) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  write(path, "1000 10 old\n", false);
  std::optional<EarlierMap> earlier = earlierMap(path);
  ASSERT_TRUE(earlier.has_value());
  laterTick();
  write(path, "3000 10 other\n", false);
  EXPECT_FALSE(stillBeginsWith(*earlier));
}

TEST(EarlierMap, RewrittenWithTheSameBytesIsNot) {
  // A deterministic program run again under the same PID writes what the
  // earlier one did: same bytes, same size, a later modification time.
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  write(path, "1000 10 same\n", false);
  std::optional<EarlierMap> earlier = earlierMap(path);
  ASSERT_TRUE(earlier.has_value());
  laterTick();
  write(path, "1000 10 same\n", false);
  EXPECT_FALSE(stillBeginsWith(*earlier));
}

TEST(EarlierMap, GoneIsNot) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  write(path, "1000 10 old\n", false);
  std::optional<EarlierMap> earlier = earlierMap(path);
  ASSERT_TRUE(earlier.has_value());
  std::remove(path.c_str());
  EXPECT_FALSE(stillBeginsWith(*earlier));
  EXPECT_FALSE(earlierMap(path).has_value());
}
