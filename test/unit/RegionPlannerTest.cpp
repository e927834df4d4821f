// The region planner: windows cut by runs of JIT memory, straddling symbols,
// claimed ranges, UUIDs and file names; plus the JSON size LLDB misreads and the
// quoting of command arguments, the other decisions made in one place.
#include "jitsym/objects/LldbCommand.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/objects/SymbolFileWriter.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace jitsym;

namespace {

constexpr uint64_t kBase = 0x7f0000000000; // a window boundary

Mapping anon(uint64_t start, uint64_t end) {
  Mapping m;
  m.start = start;
  m.end = end;
  m.read = m.execute = true;
  return m;
}

Mapping file(uint64_t start, uint64_t end) {
  Mapping m = anon(start, end);
  m.path = "/usr/lib/libfoo.so";
  m.inode = 42;
  return m;
}

std::vector<AddressRange> sections(const std::vector<PlannedRegion> &regions) {
  std::vector<AddressRange> out;
  for (const PlannedRegion &r : regions)
    out.push_back(r.section);
  return out;
}

} // namespace

TEST(RegionPlanner, TwoRunsInOneWindowAreTwoRegions) {
  // A C JIT's two runs of code with a library page between them, one window.
  SymbolTable table;
  table.add(kBase + 0x1000, 0x40, "first");
  table.add(kBase + 0x3000, 0x40, "second");
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(
      {anon(kBase, kBase + 0x2000), file(kBase + 0x2000, kBase + 0x3000),
       anon(kBase + 0x3000, kBase + 0x5000)});
  RegionPlanner planner(table, space);
  uint64_t leftOut = 0;
  std::vector<PlannedRegion> regions = planner.plan(&leftOut);
  EXPECT_EQ(leftOut, 0u);
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].section, (AddressRange{kBase, kBase + 0x2000}));
  EXPECT_EQ(regions[1].section, (AddressRange{kBase + 0x3000, kBase + 0x5000}));
  ASSERT_EQ(regions[0].symbols.size(), 1u);
  ASSERT_EQ(regions[1].symbols.size(), 1u);
  EXPECT_EQ(table.name(*regions[1].symbols[0]), "second");
  EXPECT_EQ(planner.windowOf(regions[0].section.start),
            planner.windowOf(regions[1].section.start));
  // sectionOf agrees with the plan, symbol by symbol.
  EXPECT_EQ(planner.sectionOf(kBase + 0x3000), regions[1].section);
  EXPECT_EQ(sections(planner.planWindow(planner.windowOf(kBase))), sections(regions));
}

TEST(RegionPlanner, FilePagesBetweenCodeAreNeverCoveredOrNamed) {
  SymbolTable table;
  table.add(kBase + 0x1000, 0x40, "jit");
  table.add(kBase + 0x2100, 0x40, "stale name over a library");
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(
      {anon(kBase, kBase + 0x2000), file(kBase + 0x2000, kBase + 0x3000)});
  RegionPlanner planner(table, space);
  uint64_t leftOut = 0;
  std::vector<PlannedRegion> regions = planner.plan(&leftOut);
  EXPECT_EQ(leftOut, 1u);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_LE(regions[0].section.end, kBase + 0x2000);
  EXPECT_FALSE(planner.sectionOf(kBase + 0x2100).has_value());
}

TEST(RegionPlanner, ClaimedRangesAreLikeFiles) {
  // LLDB already has a module there (JITLoaderGDB's object, say).
  SymbolTable table;
  table.add(kBase + 0x1000, 0x40, "ours");
  table.add(kBase + 0x8000, 0x40, "theirs");
  JitAddressSpace space = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + 0x10000)});
  RegionPlanner planner(table, space, {{kBase + 0x8000, kBase + 0x9000}});
  uint64_t leftOut = 0;
  std::vector<PlannedRegion> regions = planner.plan(&leftOut);
  EXPECT_EQ(leftOut, 1u);
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].section, (AddressRange{kBase, kBase + 0x8000}));
}

TEST(RegionPlanner, SymbolStraddlingAWindowEdgeStaysWhole) {
  // Dense code before the edge: the windows there are the smallest.
  constexpr uint64_t kSmallest = uint64_t(1) << kSmallestWindowShift;
  const uint64_t edge = kBase + kSmallest;
  SymbolTable table;
  for (uint64_t i = 0; i < kWindowSymbols; ++i)
    table.add(kBase + 0x1000 + i * 8, 8, "dense" + std::to_string(i));
  table.add(edge - 0x100, 0x300, "straddler"); // ends 0x200 into the next window
  table.add(edge + 0x400, 0x40, "next");
  JitAddressSpace space = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + 64 * kSmallest)});
  RegionPlanner planner(table, space);
  EXPECT_EQ(planner.windowOf(edge), (AddressRange{edge, edge + kSmallest}));
  std::vector<PlannedRegion> regions = planner.plan();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].section, (AddressRange{kBase, edge + 0x200}));
  EXPECT_EQ(regions[1].section, (AddressRange{edge + 0x200, edge + kSmallest}));
  EXPECT_EQ(table.name(*regions[0].symbols.back()), "straddler");
  // Sections never overlap, and the straddler's last byte has a region.
  EXPECT_LE(regions[0].section.end, regions[1].section.start);
  EXPECT_TRUE(regions[0].section.contains(edge + 0x1ff));
  // Planning the next window alone gives the same region.
  EXPECT_EQ(sections(planner.planWindow(planner.windowOf(edge))),
            std::vector<AddressRange>{regions[1].section});
}

TEST(RegionPlanner, WindowsAreSizedByTheSymbolsTheyHold) {
  // Sparse code: 1000 functions over 250 MiB of one run are one region (one
  // module costs LLDB far less than 250).
  constexpr uint64_t kRun = uint64_t(256) << 20;
  SymbolTable table;
  for (uint64_t i = 0; i < 1000; ++i)
    table.add(kBase + i * (kRun / 1024), 0x40, "sparse" + std::to_string(i));
  JitAddressSpace space = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + kRun)});
  EXPECT_EQ(RegionPlanner(table, space).plan().size(), 1u);
  // Dense code in its first MiB: windows split until none holds more than
  // kWindowSymbols, and the sparse rest stays in few windows.
  for (uint64_t i = 0; i < 3 * kWindowSymbols; ++i)
    table.add(kBase + 0x1000 + i * 64, 0x40, "dense" + std::to_string(i));
  RegionPlanner planner(table, space);
  std::vector<PlannedRegion> regions = planner.plan();
  constexpr uint64_t kSmallest = uint64_t(1) << kSmallestWindowShift;
  for (const PlannedRegion &region : regions) {
    const AddressRange window = planner.windowOf(region.section.start);
    EXPECT_TRUE(region.symbols.size() <= kWindowSymbols || window.end - window.start == kSmallest);
  }
  EXPECT_LT(regions.size(), 20u);
  EXPECT_EQ(planner.windowOf(kBase + 0x1000).end - planner.windowOf(kBase + 0x1000).start,
            kSmallest);
  // Without a memory map no window is larger than 1 MiB.
  RegionPlanner unmapped(table, JitAddressSpace::unrestricted());
  const AddressRange far = unmapped.windowOf(kBase + (kRun / 2));
  EXPECT_EQ(far.end - far.start, uint64_t(1) << kUnmappedWindowShift);
}

TEST(RegionPlanner, ARegionThatShrinksGetsTheSmallerSection) {
  SymbolTable table;
  table.add(kBase + 0x1000, 0x40, "f");
  JitAddressSpace before = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + 0x80000)});
  JitAddressSpace after = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + 0x4000)});
  EXPECT_EQ(RegionPlanner(table, before).sectionOf(kBase + 0x1000),
            (AddressRange{kBase, kBase + 0x80000}));
  EXPECT_EQ(RegionPlanner(table, after).sectionOf(kBase + 0x1000),
            (AddressRange{kBase, kBase + 0x4000}));
}

TEST(RegionPlanner, WithoutAMemoryMapSectionsCoverTheSymbolsPages) {
  SymbolTable table;
  table.add(kBase + 0x1010, 0x20, "a");
  table.add(kBase + 0x2ff0, 0x20, "b"); // ends in the page after
  constexpr uint64_t kWindowSize = uint64_t(1) << kUnmappedWindowShift;
  table.add(kBase + 3 * kWindowSize + 0x10, 0x10, "far");
  RegionPlanner planner(table, JitAddressSpace::unrestricted());
  std::vector<PlannedRegion> regions = planner.plan();
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].section, (AddressRange{kBase + 0x1000, kBase + 0x4000}));
  EXPECT_EQ(regions[1].section,
            (AddressRange{kBase + 3 * kWindowSize, kBase + 3 * kWindowSize + 0x1000}));
  std::vector<SectionSpec> specs = sectionsOf(regions);
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[1].name, ".jit1");
  EXPECT_EQ(specs[1].size, 0x1000u);
}

TEST(RegionPlanner, TheSameInputGivesTheSamePlan) {
  auto build = [](SymbolTable &table) {
    for (uint64_t i = 0; i < 5000; ++i)
      table.add(kBase + i * 0x400, 0x100, "fn" + std::to_string(i));
  };
  SymbolTable one, two;
  build(one);
  build(two);
  JitAddressSpace space = JitAddressSpace::fromMemoryMap({anon(kBase, kBase + 0x200000),
                                                          anon(kBase + 0x300000, kBase + 0x500000)});
  std::vector<PlannedRegion> a = RegionPlanner(one, space).plan();
  std::vector<PlannedRegion> b = RegionPlanner(two, space).plan();
  ASSERT_EQ(sections(a), sections(b));
  EXPECT_EQ(a.size(), 2u); // one window (5000 symbols), cut by the runs
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].symbols.size(), b[i].symbols.size());
    EXPECT_EQ(regionUuid(one, a[i], "salt"), regionUuid(two, b[i], "salt"));
    EXPECT_NE(regionUuid(one, a[i], "salt"), regionUuid(one, a[i], "other salt"));
  }
  EXPECT_NE(regionUuid(one, a[0], "salt"), regionUuid(one, a[1], "salt"));
}

TEST(RegionPlanner, FileNames) {
  AddressRange section{0x7f3a2c000000, 0x7f3a2c100000};
  EXPECT_EQ(RegionFiles::directory(section), "w7f3a2c000000");
  EXPECT_EQ(RegionFiles::directory(section, 3u), "w7f3a2c000000-g3");
  EXPECT_EQ(RegionFiles::symbols(), "jit.json");
  EXPECT_EQ(RegionFiles::symbols(2), "jit.d2.json");
  EXPECT_EQ(RegionFiles::debug(), "jit.debug");
  EXPECT_EQ(RegionFiles::debug(4), "jit.debug4");
}

TEST(SymbolFileWriter, NeverWritesASizeLLDBMisreads) {
  EXPECT_FALSE(lldbMisreadsJsonOfSize(4096));  // read, not mapped
  EXPECT_FALSE(lldbMisreadsJsonOfSize(12288));
  EXPECT_TRUE(lldbMisreadsJsonOfSize(16384));
  EXPECT_TRUE(lldbMisreadsJsonOfSize(20480));
  EXPECT_FALSE(lldbMisreadsJsonOfSize(16385));
  // Grow one name a byte at a time across several page multiples: every
  // rendering stays valid JSON of a size LLDB reads whole.
  SymbolFileSpec spec;
  spec.triple = "x86_64-pc-linux-gnu";
  spec.uuid = "01234567-89AB-5CDE-8F01-23456789ABCD";
  unsigned hits = 0;
  // Names are cut to 4 KiB: full names before one whose length varies.
  for (int full : {3, 4}) {
    size_t previous = 0;
    for (size_t pad = 0; pad < kMaxSymbolNameBytes; ++pad) {
      SymbolTable table;
      for (int i = 0; i < full; ++i)
        table.add(0x100 + i * 0x10, 0x10, std::string(4000, 'a' + i));
      table.add(0x1000, 0x10, std::string(pad, 'x'));
      std::vector<const Symbol *> all;
      table.forEach([&](const Symbol &s) { all.push_back(&s); });
      std::string text = renderSymbolFile(spec, table, all);
      ASSERT_FALSE(lldbMisreadsJsonOfSize(text.size())) << text.size();
      ASSERT_EQ(text.back(), '\n');
      hits += text.size() == previous; // a misread size, moved on by one byte
      previous = text.size();
    }
  }
  EXPECT_EQ(hits, 2u); // 16 KiB, then 20 KiB
}

TEST(LldbCommand, QuotesEveryByteAsLLDBReadsIt) {
  EXPECT_EQ(*lldbQuoted("/a b/c"), "\"/a b/c\"");
  EXPECT_EQ(*lldbQuoted("q\"x"), "\"q\\\"x\"");
  EXPECT_EQ(*lldbQuoted("b\\s"), "\"b\\\\s\"");
  EXPECT_EQ(*lldbQuoted("s;t`u$v'w é"), "\"s;t`u$v'w é\"");
  EXPECT_EQ(*lldbCommandWithPath("target symbols add", "-x"),
            "target symbols add -- \"-x\"");
  llvm::Expected<std::string> broken = lldbQuoted("line\nbreak");
  ASSERT_FALSE(static_cast<bool>(broken));
  EXPECT_NE(llvm::toString(broken.takeError()).find("line break"), std::string::npos);
}

TEST(RegionPlanner, SymbolsInMemoryThatIsNotExecutableAreData) {
  // V8's heap: bytecode (JS:~) in rw- pages next to code in r-x pages, one run.
  Mapping heap = anon(kBase, kBase + 0x10000);
  heap.execute = false;
  heap.write = true;
  Mapping code = anon(kBase + 0x10000, kBase + 0x20000);
  SymbolTable table;
  table.add(kBase + 0x100, 0x40, "JS:~f /a.js:1:1");
  table.add(kBase + 0x10100, 0x40, "JS:*f /a.js:1:1");
  table.add(kBase + 0x10200, 0x40, "JS:~g /a.js:2:1"); // a native-stack trampoline copy
  RegionPlanner planner(table, JitAddressSpace::fromMemoryMap({heap, code}));
  std::vector<PlannedRegion> regions = planner.plan();
  ASSERT_EQ(regions.size(), 1u); // one run: permissions do not cut regions
  ASSERT_EQ(regions[0].symbols.size(), 3u);
  EXPECT_TRUE(planner.isData(*regions[0].symbols[0]));
  EXPECT_FALSE(planner.isData(*regions[0].symbols[1]));
  EXPECT_FALSE(planner.isData(*regions[0].symbols[2])); // executable: code, whatever its name
  // The JSON says so, and no DWARF function is made for data.
  auto isData = [&](const Symbol &s) { return planner.isData(s); };
  SymbolFileSpec spec;
  std::string json = renderSymbolFile(spec, table, regions[0].symbols, isData);
  EXPECT_NE(json.find("\"type\": \"data\""), std::string::npos);
  EXPECT_NE(json.find("\"type\": \"code\""), std::string::npos);
  // A permission flip changes the digest a live sync compares.
  Mapping flipped = code;
  flipped.execute = false;
  EXPECT_NE(JitAddressSpace::fromMemoryMap({heap, code}).executableDigest(),
            JitAddressSpace::fromMemoryMap({heap, flipped}).executableDigest());
}

// LLVM's MCJIT writes its jitdump while the code is still rw- and makes it
// r-x only after (finalizeMemory), with no stop between: a jitdump's symbol
// (kOwnedFlag) in writable memory is code, a perf map's there is data, and
// memory neither writable nor executable holds none.
TEST(RegionPlanner, JitdumpSymbolsInWritableMemoryAreCodeNotYetExecutable) {
  Mapping written = anon(kBase, kBase + 0x10000);
  written.execute = false;
  written.write = true;
  Mapping reserved = anon(kBase + 0x10000, kBase + 0x20000);
  reserved.execute = false;
  reserved.read = false;
  SymbolTable table;
  table.add(kBase + 0x100, 0x40, "middle_fn", kOwnedFlag);
  table.add(kBase + 0x200, 0x40, "JS:~f /a.js:1:1");
  table.add(kBase + 0x10100, 0x40, "freed_fn", kOwnedFlag);
  RegionPlanner planner(table, JitAddressSpace::fromMemoryMap({written, reserved}));
  EXPECT_FALSE(planner.isData(*table.findByAddress(kBase + 0x100)));
  EXPECT_TRUE(planner.isData(*table.findByAddress(kBase + 0x200)));
  EXPECT_TRUE(planner.isData(*table.findByAddress(kBase + 0x10100)));
}

TEST(RegionPlanner, WithoutAMemoryMapTheRuntimesNameDecides) {
  SymbolTable table;
  table.add(kBase + 0x100, 0x40, "JS:~f /a.js:1:1");
  table.add(kBase + 0x200, 0x40, "LazyCompile:~old a.js:1");
  table.add(kBase + 0x300, 0x40, "JS:^f /a.js:1:1");
  table.add(kBase + 0x400, 0x40, "long Hot.work(int)");
  RegionPlanner planner(table, JitAddressSpace::unrestricted());
  std::vector<bool> data;
  table.forEach([&](const Symbol &s) { data.push_back(planner.isData(s)); });
  EXPECT_EQ(data, (std::vector<bool>{true, true, false, false}));
}

// A decorated code name is followed by its alias, at the same address and size;
// data gets none (no breakpoint by name may resolve there).
TEST(SymbolFileWriter, DecoratedCodeNamesGetTheTypedNameAfterThem) {
  SymbolTable table;
  table.add(kBase + 0x100, 0x40, "JS:*crunchTotals /a.js:3:22");
  table.add(kBase + 0x200, 0x40, "JS:~idle /a.js:9:1");
  table.add(kBase + 0x300, 0x20, "jit_plain");
  std::vector<const Symbol *> all;
  table.forEach([&](const Symbol &s) { all.push_back(&s); });
  auto isData = [&](const Symbol &s) { return table.name(s).substr(0, 4) == "JS:~"; };
  nlohmann::json doc = nlohmann::json::parse(renderSymbolFile({}, table, all, isData));
  std::vector<std::string> listed;
  for (const nlohmann::json &s : doc["symbols"])
    listed.push_back(s["name"].get<std::string>() + " " + s["type"].get<std::string>() + " " +
                     std::to_string(s["address"].get<uint64_t>() - kBase) + " " +
                     std::to_string(s["size"].get<uint64_t>()));
  EXPECT_EQ(listed, (std::vector<std::string>{"JS:*crunchTotals /a.js:3:22 code 256 64",
                                              "crunchTotals code 256 64",
                                              "JS:~idle /a.js:9:1 data 512 64",
                                              "jit_plain code 768 32"}));
}
