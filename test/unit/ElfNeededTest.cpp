// A program's DT_NEEDED libraries, read from real programs on this machine:
// this test's own binary and a static one.
#include "jitsym/formats/ElfNeeded.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

using namespace jitsym;

namespace {

std::string contentsOf(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

} // namespace

TEST(ElfNeeded, ThisProgramNeedsLibc) {
  const std::string self = contentsOf("/proc/self/exe");
  llvm::Expected<std::vector<std::string>> needed = parseNeededLibraries(self, "self");
  ASSERT_TRUE(bool(needed)) << llvm::toString(needed.takeError());
  EXPECT_NE(std::find(needed->begin(), needed->end(), "libc.so.6"), needed->end());
}

TEST(ElfNeeded, NotAnElfFileIsNamed) {
  llvm::Expected<std::vector<std::string>> needed = parseNeededLibraries("#!/bin/sh\n", "run.sh");
  ASSERT_FALSE(bool(needed));
  EXPECT_EQ(llvm::toString(needed.takeError()), "run.sh: not a 64-bit little-endian ELF file");
}

// Cut anywhere, the file gives an error or the same names (never a read
// past its end: the unit tests run under ASan in CI).
TEST(ElfNeeded, CutFilesFailOrAgree) {
  const std::string self = contentsOf("/proc/self/exe");
  llvm::Expected<std::vector<std::string>> whole = parseNeededLibraries(self, "self");
  ASSERT_TRUE(bool(whole));
  for (size_t cut = 0; cut < self.size(); cut += 1 + cut / 3) {
    llvm::Expected<std::vector<std::string>> part =
        parseNeededLibraries(llvm::StringRef(self).take_front(cut), "self");
    if (!part) {
      EXPECT_EQ(llvm::toString(part.takeError()).rfind("self: ", 0), 0u);
      continue;
    }
    EXPECT_TRUE(part->empty() || *part == *whole) << cut;
  }
}

TEST(ElfNeeded, AStaticProgramNeedsNothing) {
  // ldconfig is static in Debian's libc-bin.
  const std::string ldconfig = contentsOf("/sbin/ldconfig");
  if (ldconfig.empty())
    GTEST_SKIP() << "no /sbin/ldconfig";
  llvm::Expected<std::vector<std::string>> needed = parseNeededLibraries(ldconfig, "ldconfig");
  ASSERT_TRUE(bool(needed)) << llvm::toString(needed.takeError());
  EXPECT_TRUE(needed->empty());
}
