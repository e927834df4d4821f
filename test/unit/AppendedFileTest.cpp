// Appended files: what is remembered of them to tell a rewrite.
#include "jitsym/files/AppendedFile.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "TempDir.h"

using namespace jitsym;
using jitsym::test::TempDir;

TEST(AppendedFile, RememberingAFileTruncatedSinceItWasRead) {
  // A runtime truncated the file between the read and remember(): found by a
  // jitdump reader racing a writer that rewrote its file (it crashed reading
  // samples_.back() of none).
  TempDir dir;
  const std::string path = dir.file("jit-7.dump");
  { std::ofstream(path) << std::string(100000, 'x'); }
  AppendedFile file(path, TrustPolicy{});
  llvm::Expected<AppendedFile::Opened> opened = file.open(0);
  ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
  ASSERT_EQ(::truncate(path.c_str(), 10), 0);
  file.remember(opened->fd, 100000);
  llvm::Expected<AppendedFile::Opened> again = file.open(100000);
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_TRUE(again->replaced) << "it shrank below what was read";
}

TEST(AppendedFile, RememberedBytesTellAnAppendFromARewrite) {
  TempDir dir;
  const std::string path = dir.file("perf-7.map");
  { std::ofstream(path) << std::string(5000, 'a'); }
  AppendedFile file(path, TrustPolicy{});
  {
    llvm::Expected<AppendedFile::Opened> opened = file.open(0);
    ASSERT_TRUE(bool(opened));
    file.remember(opened->fd, 5000);
  }
  { std::ofstream(path, std::ios::app) << std::string(100, 'b'); }
  {
    llvm::Expected<AppendedFile::Opened> appended = file.open(5000);
    ASSERT_TRUE(bool(appended));
    EXPECT_FALSE(appended->replaced);
    file.remember(appended->fd, 5100);
  }
  { std::ofstream(path) << std::string(2500, 'c') + std::string(2600, 'a'); }
  llvm::Expected<AppendedFile::Opened> rewritten = file.open(5100);
  ASSERT_TRUE(bool(rewritten));
  EXPECT_TRUE(rewritten->replaced);
}
