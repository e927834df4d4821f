// JIT address space from a memory map, and window sections.
#include "jitsym/plan/Regions.h"

#include <gtest/gtest.h>

#include <vector>

using namespace jitsym;

namespace {

Mapping anon(uint64_t start, uint64_t end, std::string path = "") {
  Mapping m;
  m.start = start;
  m.end = end;
  m.read = true;
  m.path = std::move(path);
  return m;
}

Mapping file(uint64_t start, uint64_t end, std::string path) {
  Mapping m = anon(start, end, std::move(path));
  m.inode = 1234;
  return m;
}

} // namespace

TEST(Regions, MergesAdjacentAnonymousMappings) {
  // V8 splits one code reservation by permission: rw- | r-x | rw- all adjacent.
  std::vector<Mapping> maps = {
      anon(0x10000, 0x20000), anon(0x20000, 0x30000), anon(0x30000, 0x38000),
      anon(0x40000, 0x50000), // gap before it: separate run
  };
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(maps);
  EXPECT_TRUE(space.hasMemoryMap());
  auto run = space.runContaining(0x25000);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(*run, (AddressRange{0x10000, 0x38000}));
  EXPECT_EQ(space.runContaining(0x10000), run);
  EXPECT_EQ(space.runContaining(0x37fff), run);
  EXPECT_FALSE(space.runContaining(0x38000).has_value()); // end exclusive, gap
  EXPECT_FALSE(space.runContaining(0x3ffff).has_value());
  EXPECT_EQ(space.runContaining(0x40000), (AddressRange{0x40000, 0x50000}));
  EXPECT_FALSE(space.runContaining(0xffff).has_value());
  EXPECT_FALSE(space.runContaining(0x50000).has_value());
  EXPECT_FALSE(space.runContaining(0).has_value());
  EXPECT_FALSE(space.runContaining(UINT64_MAX).has_value());
}

TEST(Regions, UnsortedInputIsSorted) {
  std::vector<Mapping> maps = {anon(0x30000, 0x40000), anon(0x10000, 0x20000),
                               anon(0x20000, 0x30000)};
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(maps);
  EXPECT_EQ(space.runContaining(0x15000), (AddressRange{0x10000, 0x40000}));
}

TEST(Regions, ExcludesFileBackedAndSpecial) {
  std::vector<Mapping> maps = {
      anon(0x10000, 0x20000),
      file(0x20000, 0x30000, "/usr/bin/node"), // splits the anonymous memory
      anon(0x30000, 0x40000),
      anon(0x40000, 0x50000, "[stack]"),
      anon(0x50000, 0x60000, "[vdso]"),
      anon(0x60000, 0x70000, "[vvar]"),
      anon(0x70000, 0x80000, "[heap]"),
      file(0x80000, 0x90000, "/memfd:jit (deleted)"),
      file(0x90000, 0xa0000, "/tmp/code (deleted)"),
      anon(0xffffffffff600000, 0xffffffffff601000, "[vsyscall]"),
  };
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(maps);
  EXPECT_EQ(space.runContaining(0x10000), (AddressRange{0x10000, 0x20000}));
  EXPECT_FALSE(space.runContaining(0x20000).has_value());
  EXPECT_FALSE(space.runContaining(0x2ffff).has_value());
  EXPECT_EQ(space.runContaining(0x30000), (AddressRange{0x30000, 0x40000}));
  EXPECT_FALSE(space.runContaining(0x45000).has_value());
  EXPECT_FALSE(space.runContaining(0x55000).has_value());
  EXPECT_FALSE(space.runContaining(0x65000).has_value());
  // Heap, memfd and deleted files may hold JIT code: one run from 0x70000.
  EXPECT_EQ(space.runContaining(0x85000), (AddressRange{0x70000, 0xa0000}));
  EXPECT_FALSE(space.runContaining(0xffffffffff600000).has_value());
}

TEST(Regions, EmptyMapAllowsNothing) {
  JitAddressSpace space = JitAddressSpace::fromMemoryMap({});
  EXPECT_TRUE(space.hasMemoryMap());
  EXPECT_FALSE(space.runContaining(0x1000).has_value());
}

TEST(Regions, UnrestrictedAllowsEverything) {
  JitAddressSpace space = JitAddressSpace::unrestricted();
  EXPECT_FALSE(space.hasMemoryMap());
  auto run = space.runContaining(0x7f0000001234);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->start, 0u);
  EXPECT_EQ(run->end, UINT64_MAX);
  EXPECT_TRUE(space.runContaining(0).has_value());
  EXPECT_TRUE(space.runContaining(UINT64_MAX - 1).has_value());
}

TEST(Regions, ExcludingClaimedRanges) {
  std::vector<Mapping> maps = {anon(0x10000, 0x40000), anon(0x50000, 0x60000)};
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(maps).excluding(
      {{0x58000, 0x70000}, {0x20000, 0x21000}, {0x0, 0x11000}});
  EXPECT_TRUE(space.hasMemoryMap());
  EXPECT_FALSE(space.runContaining(0x10000).has_value());
  EXPECT_EQ(space.runContaining(0x11000), (AddressRange{0x11000, 0x20000}));
  EXPECT_FALSE(space.runContaining(0x20fff).has_value());
  EXPECT_EQ(space.runContaining(0x21000), (AddressRange{0x21000, 0x40000}));
  EXPECT_EQ(space.runContaining(0x57fff), (AddressRange{0x50000, 0x58000}));
  EXPECT_FALSE(space.runContaining(0x58000).has_value());
}

TEST(Regions, AddressRangeContains) {
  AddressRange r{0x1000, 0x2000};
  EXPECT_FALSE(r.contains(0xfff));
  EXPECT_TRUE(r.contains(0x1000));
  EXPECT_TRUE(r.contains(0x1fff));
  EXPECT_FALSE(r.contains(0x2000));
  EXPECT_NE(r, (AddressRange{0x1000, 0x2001}));
}

// Node 26.12.1's memory map (lines of it): V8 maps its embedded builtins a
// second time, from the binary, near its code; the perf map names them there.
// LLDB's module of the binary covers the first mapping only.
TEST(Regions, CopiesOfMappedCodeAreJitMemory) {
  const std::vector<Mapping> maps = parseMemoryMap(
      "00400000-0082f000 r--p 00000000 fe:00 5391231 /opt/node26/bin/node\n"
      "0082f000-034ce000 r-xp 0042f000 fe:00 5391231 /opt/node26/bin/node\n"
      "034ce000-0732a000 r--p 030ce000 fe:00 5391231 /opt/node26/bin/node\n"
      "7f85a6400000-7f85a6500000 rw-p 00000000 00:00 0\n"
      "7f85a6500000-7f85a6715000 r-xp 01625000 fe:00 5391231 /opt/node26/bin/node\n"
      "7f85a6715000-7f85a6800000 ---p 00000000 00:00 0\n"
      "7f85b0000000-7f85b0001000 r-xp 00000000 fe:00 999 /opt/lib/libz.so.1\n"
      "7f85b0001000-7f85b0002000 r-xp 00000000 fe:00 999 /opt/lib/libz.so.1\n",
      "maps");
  EXPECT_TRUE(isCopyOfMappedCode(maps[4], maps));
  EXPECT_FALSE(isCopyOfMappedCode(maps[1], maps)) << "the binary's own code";
  EXPECT_FALSE(isCopyOfMappedCode(maps[2], maps)) << "not executable";
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(maps);
  EXPECT_EQ(space.runContaining(0x7f85a6600000), (AddressRange{0x7f85a6400000, 0x7f85a6800000}));
  EXPECT_EQ(space.executable(0x7f85a6600000), true);
  EXPECT_FALSE(space.runContaining(0x1000000).has_value()) << "the module's";
  // Where the debugger has a module at the copy after all, its symbols win.
  EXPECT_FALSE(space.excluding({{0x7f85a6500000, 0x7f85a6715000}})
                   .runContaining(0x7f85a6600000)
                   .has_value());
}
