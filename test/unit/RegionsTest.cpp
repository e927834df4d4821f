// JIT address space from a memory map, and window sections.
#include "jitsym/Regions.h"

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

TEST(Regions, WindowIndex) {
  EXPECT_EQ(kWindowSize, 0x100000u);
  EXPECT_EQ(windowIndexOf(0), 0u);
  EXPECT_EQ(windowIndexOf(0xfffff), 0u);
  EXPECT_EQ(windowIndexOf(0x100000), 1u);
  EXPECT_EQ(windowIndexOf(0x7f3a2c001000), 0x7f3a2c0u);
}

TEST(Regions, WindowSectionClipping) {
  // Run well inside one window: the section is the run.
  AddressRange small{0x7f0000010000, 0x7f0000020000};
  EXPECT_EQ(windowSection(windowIndexOf(small.start), small), small);

  // Run spanning three windows.
  AddressRange run{0x7f00000f0000, 0x7f0000280000};
  uint64_t first = windowIndexOf(run.start);
  EXPECT_EQ(windowSection(first, run), (AddressRange{0x7f00000f0000, 0x7f0000100000}));
  EXPECT_EQ(windowSection(first + 1, run), (AddressRange{0x7f0000100000, 0x7f0000200000}));
  EXPECT_EQ(windowSection(first + 2, run), (AddressRange{0x7f0000200000, 0x7f0000280000}));

  // Unrestricted run: the whole window.
  AddressRange all{0, UINT64_MAX};
  EXPECT_EQ(windowSection(5, all), (AddressRange{0x500000, 0x600000}));
  // The very last window does not wrap.
  uint64_t last = windowIndexOf(UINT64_MAX);
  AddressRange top = windowSection(last, all);
  EXPECT_EQ(top.start, 0xfffffffffff00000u);
  EXPECT_EQ(top.end, UINT64_MAX);
  EXPECT_LT(top.start, top.end);
}

TEST(Regions, AddressRangeContains) {
  AddressRange r{0x1000, 0x2000};
  EXPECT_FALSE(r.contains(0xfff));
  EXPECT_TRUE(r.contains(0x1000));
  EXPECT_TRUE(r.contains(0x1fff));
  EXPECT_FALSE(r.contains(0x2000));
  EXPECT_NE(r, (AddressRange{0x1000, 0x2001}));
}
