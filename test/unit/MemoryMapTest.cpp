// /proc/PID/maps parsing and mapping classification.
#include "jitsym/formats/MemoryMap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace jitsym;

namespace {

const char *const kMaps =
    "55e845acc000-55e845ace000 r--p 00000000 fe:00 247134                     /usr/bin/node\n"
    "55e845ace000-55e845ad3000 r-xp 00002000 fe:00 247134                     /usr/bin/node\n"
    "55e861888000-55e8618a9000 rw-p 00000000 00:00 0                          [heap]\n"
    "7efe87923000-7efe87945000 rwxp 00000000 00:00 0 \n"
    "7efe87945000-7efe8799c000 r-xs 00000000 00:01 4242                       /memfd:x (deleted)\n"
    "7efe8799c000-7efe8799d000 r--p 00001000 fe:00 320482                     /opt/my app/lib with spaces.so\n"
    "7efe879a0000-7efe879a1000 r--p 00000000 fe:00 99                         /tmp/jit-1.dump (deleted)\n"
    "7efe87b95000-7efe87b99000 r--p 00000000 00:00 0                          [vvar]\n"
    "7efe87b99000-7efe87b9b000 r-xp 00000000 00:00 0                          [vdso]\n"
    "7ffc1a2b3000-7ffc1a2d4000 rw-p 00000000 00:00 0                          [stack]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

} // namespace

TEST(MemoryMap, ParsesRealLines) {
  std::vector<Diagnostic> diags;
  std::vector<Mapping> maps = parseMemoryMap(kMaps, "maps", &diags);
  EXPECT_TRUE(diags.empty());
  ASSERT_EQ(maps.size(), 11u);

  const Mapping &exe = maps[1];
  EXPECT_EQ(exe.start, 0x55e845ace000u);
  EXPECT_EQ(exe.end, 0x55e845ad3000u);
  EXPECT_TRUE(exe.read);
  EXPECT_FALSE(exe.write);
  EXPECT_TRUE(exe.execute);
  EXPECT_FALSE(exe.shared);
  EXPECT_EQ(exe.offset, 0x2000u);
  EXPECT_EQ(exe.inode, 247134u);
  EXPECT_EQ(exe.path, "/usr/bin/node");

  EXPECT_EQ(maps[2].path, "[heap]");
  EXPECT_TRUE(maps[2].write);

  const Mapping &anon = maps[3];
  EXPECT_EQ(anon.path, "");
  EXPECT_EQ(anon.inode, 0u);
  EXPECT_TRUE(anon.read && anon.write && anon.execute);

  EXPECT_EQ(maps[4].path, "/memfd:x (deleted)");
  EXPECT_TRUE(maps[4].shared);
  EXPECT_EQ(maps[4].inode, 4242u);

  EXPECT_EQ(maps[5].path, "/opt/my app/lib with spaces.so");
  EXPECT_EQ(maps[5].offset, 0x1000u);

  EXPECT_EQ(maps[10].start, 0xffffffffff600000u);
  EXPECT_FALSE(maps[10].read);
  EXPECT_TRUE(maps[10].execute);
  EXPECT_EQ(maps[10].path, "[vsyscall]");
}

TEST(MemoryMap, Classification) {
  std::vector<Mapping> maps = parseMemoryMap(kMaps, "maps");
  ASSERT_EQ(maps.size(), 11u);
  // File-backed: real files with an inode.
  EXPECT_TRUE(maps[0].isFileBacked());
  EXPECT_TRUE(maps[1].isFileBacked());
  EXPECT_TRUE(maps[5].isFileBacked());
  // Not file-backed: heap, anonymous, memfd, deleted files, kernel mappings.
  EXPECT_FALSE(maps[2].isFileBacked());
  EXPECT_FALSE(maps[3].isFileBacked());
  EXPECT_FALSE(maps[4].isFileBacked());
  EXPECT_FALSE(maps[6].isFileBacked());
  for (size_t i = 7; i < maps.size(); ++i)
    EXPECT_FALSE(maps[i].isFileBacked()) << maps[i].path;

  for (size_t i : {7, 8, 9, 10})
    EXPECT_TRUE(maps[i].isSpecial()) << maps[i].path;
  for (size_t i : {0, 1, 2, 3, 4, 5, 6})
    EXPECT_FALSE(maps[i].isSpecial()) << maps[i].path;
}

TEST(MemoryMap, ClassificationEdgeCases) {
  Mapping m;
  m.path = "/usr/lib/x.so";
  m.inode = 0; // a path without an inode is not a real file
  EXPECT_FALSE(m.isFileBacked());
  m.inode = 7;
  EXPECT_TRUE(m.isFileBacked());
  m.path = "[stack:1234]"; // per-thread stacks (old kernels)
  EXPECT_TRUE(m.isSpecial());
  EXPECT_FALSE(m.isFileBacked());
  m.path = "[anon:v8]";
  EXPECT_FALSE(m.isSpecial());
  m.path = "[heap]";
  EXPECT_FALSE(m.isSpecial());
}

TEST(MemoryMap, NewerKernelSpecialMappings) {
  // Regression test for a fixed bug: Linux 6.x maps "[vvar_vclock]" next to [vvar]/[vdso] (this machine's
  // /proc/self/maps shows it). Mapping::isSpecial (MemoryMap.cpp:40) does not
  // list it, so JitAddressSpace treats it as JIT memory.
  Mapping m;
  m.path = "[vvar_vclock]";
  EXPECT_TRUE(m.isSpecial());
}

TEST(MemoryMap, MalformedLinesGetDiagnosticsWithLineNumbers) {
  const char *text = "1000-2000 r-xp 00000000 00:00 0\n"        // 1 ok
                     "garbage\n"                                  // 2
                     "\n"                                         // 3 blank, skipped
                     "3000-2000 r-xp 00000000 00:00 0\n"          // 4 start >= end
                     "4000-5000 rw 00000000 00:00 0\n"            // 5 short perms
                     "6000-7000 r-xp 0000zz00 00:00 0\n"          // 6 bad offset
                     "8000-9000 r-xp 00000000 00:00 x12 /a\n"     // 7 bad inode
                     "a000:b000 r-xp 00000000 00:00 0\n"          // 8 no dash
                     "c000-d000 r-xp 00000000 00:00\n"            // 9 no inode
                     "e000-f000 r-xp 00000000 00:00 5 /ok\n";     // 10 ok
  std::vector<Diagnostic> diags;
  std::vector<Mapping> maps = parseMemoryMap(text, "/proc/42/maps", &diags);
  ASSERT_EQ(maps.size(), 2u);
  EXPECT_EQ(maps[0].start, 0x1000u);
  EXPECT_EQ(maps[1].path, "/ok");
  std::vector<uint64_t> lines;
  for (const Diagnostic &d : diags) {
    lines.push_back(d.line);
    EXPECT_EQ(d.file, "/proc/42/maps");
    EXPECT_EQ(d.message, "malformed memory map line");
  }
  EXPECT_EQ(lines, (std::vector<uint64_t>{2, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(diags[0].str(), "/proc/42/maps:2: malformed memory map line");
}

TEST(MemoryMap, LastLineWithoutNewlineAndNoDiagnosticsSink) {
  std::vector<Mapping> maps =
      parseMemoryMap("1000-2000 r-xp 00000000 00:00 0\nbad line\n3000-4000 rw-p 10 00:00 0 [heap]", "m");
  ASSERT_EQ(maps.size(), 2u); // nullptr diagnostics must not crash
  EXPECT_EQ(maps[1].path, "[heap]");
  EXPECT_EQ(maps[1].offset, 0x10u);
}

TEST(MemoryMap, EmptyInput) {
  std::vector<Diagnostic> diags;
  EXPECT_TRUE(parseMemoryMap("", "m", &diags).empty());
  EXPECT_TRUE(diags.empty());
}

TEST(MemoryMap, OwnProcessMapsParseCleanly) {
  FILE *f = std::fopen("/proc/self/maps", "r");
  if (!f)
    GTEST_SKIP() << "no /proc";
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), f)) > 0)
    text.append(buffer, n);
  std::fclose(f);
  std::vector<Diagnostic> diags;
  std::vector<Mapping> maps = parseMemoryMap(text, "/proc/self/maps", &diags);
  EXPECT_TRUE(diags.empty()) << diags[0].str();
  EXPECT_GT(maps.size(), 5u);
  // The test's own code is file-backed; its stack is special.
  uint64_t code = reinterpret_cast<uint64_t>(&parseMemoryMap);
  bool foundCode = false, foundStack = false;
  for (const Mapping &m : maps) {
    if (code >= m.start && code < m.end) {
      foundCode = true;
      EXPECT_TRUE(m.isFileBacked()) << m.path;
    }
    if (m.path == "[stack]") {
      foundStack = true;
      EXPECT_TRUE(m.isSpecial());
    }
  }
  EXPECT_TRUE(foundCode);
  EXPECT_TRUE(foundStack);
}
