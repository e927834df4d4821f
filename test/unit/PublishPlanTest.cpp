// The publish plan: which regions a sync makes anew (and why), which get a
// delta, which modules go; decided without LLDB.
#include "jitsym/plan/PublishPlan.h"

#include <gtest/gtest.h>

#include <deque>

using namespace jitsym;

namespace {

constexpr uint64_t kBase = 0x7f0000000000; // a window boundary
constexpr uint64_t kRun = 0x100000;        // one run of JIT memory

Mapping anon(uint64_t start, uint64_t end, bool execute = true) {
  Mapping m;
  m.start = start;
  m.end = end;
  m.read = true;
  m.execute = execute;
  m.write = !execute;
  return m;
}

// Entries read from a script: every function keeps a frame pointer unless
// listed.
class ScriptedEntries : public EntryReader {
public:
  std::set<uint64_t> notKept;
  std::vector<std::pair<uint64_t, uint64_t>> prefetched;
  int reads = 0;
  void prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions) override {
    prefetched.insert(prefetched.end(), functions.begin(), functions.end());
  }
  EntryRule at(uint64_t start, uint64_t) override {
    ++reads;
    return {notKept.count(start) ? FramePointer::NotKept : FramePointer::Kept, std::nullopt};
  }
};

// A process as the plan sees it: its table, memory map and what LLDB holds,
// with each planned step taken as LLDB would take it.
struct Process {
  SymbolTable table;
  std::vector<Mapping> mappings{anon(kBase, kBase + kRun)};
  HeldRegions held;
  std::deque<FramePointerCode> codes; // what each held module's object gives
  PublishCarry carry;
  ScriptedEntries entries;
  std::vector<AddressRange> claimed, jitLoader;

  PublishPlan plan() {
    const JitAddressSpace space = JitAddressSpace::fromMemoryMap(mappings);
    PublishPlan::Inputs in{table,  space, claimed, jitLoader, held, kX86_64, std::nullopt};
    SymbolChanges changes = table.takeChanges();
    return PublishPlan(in, changes, carry, entries);
  }
  // Applies the plan as the plugin does: modules made anew and removed.
  void apply(const PublishPlan &plan) {
    for (const PublishPlan::Window &window : plan.windows()) {
      for (const PublishPlan::Step &step : window.steps)
        if (step.anew) {
          uint64_t data = 0;
          for (const Symbol *symbol : step.anew->symbols)
            data += plan.isData(*symbol);
          codes.push_back(framePointerCodeOf(
              step.anew->section, step.anew->symbols,
              [&](const Symbol &s) { return plan.isData(s); }, plan.probe()));
          held[step.key] = {step.anew->section, data, &codes.back()};
        }
      for (uint64_t key : window.removed)
        held.erase(key);
    }
  }
  PublishPlan publish() {
    PublishPlan p = plan();
    apply(p);
    return p;
  }
};

std::vector<const PublishPlan::Step *> steps(const PublishPlan &plan) {
  std::vector<const PublishPlan::Step *> all;
  for (const PublishPlan::Window &window : plan.windows())
    for (const PublishPlan::Step &step : window.steps)
      all.push_back(&step);
  return all;
}

} // namespace

TEST(PublishPlan, FirstSymbolsMakeANewRegion) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "a");
  p.table.add(kBase + 0x200, 0x40, "b");
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::NewRegion);
  ASSERT_TRUE(all[0]->anew);
  EXPECT_EQ(all[0]->anew->section, (AddressRange{kBase, kBase + kRun}));
  EXPECT_EQ(all[0]->anew->symbols.size(), 2u);
  EXPECT_EQ(all[0]->added.size(), 2u);
  EXPECT_EQ(plan.added(), 2u);
  // Both entries are read for the new module, none is known yet.
  EXPECT_EQ(plan.entriesToRead().size(), 2u);
  EXPECT_TRUE(plan.knownEntries().empty());
}

TEST(PublishPlan, MoreCodeInAHeldRegionIsADelta) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "a");
  p.publish();
  p.table.add(kBase + 0x200, 0x40, "b");
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::Delta);
  EXPECT_FALSE(all[0]->anew);
  ASSERT_EQ(all[0]->added.size(), 1u);
  EXPECT_EQ(p.table.name(*all[0]->added[0]), "b");
  // Its entry was read in one batch, and it agrees with the module's rule.
  EXPECT_EQ(p.entries.prefetched.back(), (std::pair<uint64_t, uint64_t>{kBase + 0x200, 0x40}));
  EXPECT_TRUE(plan.windows()[0].removed.empty());
}

TEST(PublishPlan, ReplacedCodeRemakesItsRegionKeepingKnownEntries) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "a");
  p.table.add(kBase + 0x200, 0x40, "b");
  p.publish();
  p.table.add(kBase + 0x200, 0x40, "b2"); // replaces b
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::CodeRemoved);
  ASSERT_TRUE(all[0]->anew);
  EXPECT_EQ(plan.removed(), 1u);
  // a's rule comes from the module LLDB has; b2 is new and read.
  ASSERT_EQ(plan.knownEntries().size(), 1u);
  EXPECT_EQ(plan.knownEntries()[0].start, kBase + 0x100);
  ASSERT_EQ(plan.entriesToRead().size(), 1u);
  EXPECT_EQ(plan.entriesToRead()[0].first, kBase + 0x200);
}

TEST(PublishPlan, BreakpointLocationsAskForARemake) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "a");
  p.publish();
  p.carry.remake.insert(kBase + 0x120);
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::Asked);
  EXPECT_TRUE(all[0]->anew);
  EXPECT_TRUE(all[0]->added.empty());
  EXPECT_TRUE(p.carry.remake.empty()) << "the plan consumes what was carried";
}

TEST(PublishPlan, CodeWithAnotherUnwindRuleRemakesItsRegion) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "keeps");
  p.publish();
  p.entries.notKept.insert(kBase + 0x200); // Mono-like code after V8-like code
  p.table.add(kBase + 0x200, 0x40, "doesNot");
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::FrameRule);
  ASSERT_TRUE(all[0]->anew);
  // The new module gives each function its own rule.
  EXPECT_TRUE(p.held.at(kBase).framePointerCode->covers(kBase + 0x100));
  EXPECT_FALSE(p.held.at(kBase).framePointerCode->covers(kBase + 0x200));
}

TEST(PublishPlan, DataThatBecomesExecutableIsCodeAfterARemake) {
  Process p;
  p.mappings = {anon(kBase, kBase + kRun, /*execute=*/false)};
  p.table.add(kBase + 0x100, 0x40, "written");
  p.publish();
  EXPECT_EQ(p.held.at(kBase).dataSymbols, 1u);
  // Nothing changed: nothing to do.
  EXPECT_TRUE(steps(p.publish()).empty());
  p.mappings = {anon(kBase, kBase + kRun, /*execute=*/true)};
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::BecameCode);
  EXPECT_EQ(p.held.at(kBase).dataSymbols, 0u);
}

TEST(PublishPlan, AnUnfinishedWindowIsPlannedAgain) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "a");
  p.publish();
  p.carry.leftBehind.insert(kBase + 0x100);
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::LeftBehind);
  EXPECT_TRUE(all[0]->anew);
}

TEST(PublishPlan, AMovedRegionBoundaryRemovesTheOldModule) {
  // Two runs; then the memory between them is mapped, joining them: one
  // region in place of two.
  Process p;
  p.mappings = {anon(kBase, kBase + 0x10000), anon(kBase + 0x20000, kBase + 0x30000)};
  p.table.add(kBase + 0x100, 0x40, "a");
  p.table.add(kBase + 0x20100, 0x40, "b");
  p.publish();
  ASSERT_EQ(p.held.size(), 2u);
  p.mappings = {anon(kBase, kBase + 0x30000)};
  p.table.add(kBase + 0x300, 0x40, "c");
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::PlanChanged);
  EXPECT_EQ(all[0]->anew->section, (AddressRange{kBase, kBase + 0x30000}));
  EXPECT_EQ(all[0]->anew->symbols.size(), 3u);
  ASSERT_EQ(plan.windows().size(), 1u);
  EXPECT_EQ(plan.windows()[0].removed, std::vector<uint64_t>{kBase + 0x20000});
  EXPECT_EQ(p.held.size(), 1u);
}

TEST(PublishPlan, AWindowThatSplitsRemakesEveryPart) {
  // One 256 MiB window of sparse code is one region; dense code in its first
  // quarter splits it in four, so the region's module no longer fits any of
  // them: every quarter is planned again.
  constexpr uint64_t kQuarter = 64ull << 20;
  Process p;
  p.mappings = {anon(kBase, kBase + 4 * kQuarter)};
  for (uint64_t q = 0; q < 4; ++q)
    p.table.add(kBase + q * kQuarter + 0x100, 0x40, "sparse" + std::to_string(q));
  ASSERT_EQ(steps(p.publish()).size(), 1u);
  for (uint64_t i = 0; i <= kWindowSymbols; ++i)
    p.table.add(kBase + 0x1000 + i * 0x40, 0x40, "dense" + std::to_string(i));
  PublishPlan plan = p.publish();
  auto all = steps(plan);
  // The dense quarter splits further (down to 1 MiB windows): one region per
  // window with code, the first at the old key.
  ASSERT_GE(all.size(), 4u);
  EXPECT_EQ(all[0]->why, RemakeReason::PlanChanged);
  EXPECT_EQ(all[0]->key, kBase);
  EXPECT_LE(all[0]->anew->section.end, kBase + kQuarter);
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_EQ(all[i]->why, RemakeReason::NewRegion) << i;
    EXPECT_GE(all[i]->anew->section.start, all[i - 1]->anew->section.end) << i;
  }
  for (size_t q = 1; q < 4; ++q)
    EXPECT_EQ(all[all.size() - 4 + q]->key, kBase + q * kQuarter) << q;
  EXPECT_EQ(p.held.size(), all.size());
}

TEST(PublishPlan, ClaimedAndLoaderMemoryIsCountedNotPublished) {
  Process p;
  p.table.add(kBase + 0x100, 0x40, "ours");
  p.table.add(kBase + 0x8100, 0x40, "loaders");
  p.table.add(kBase + 0x9100, 0x40, "claimed");
  p.claimed = {{kBase + 0x8000, kBase + 0xa000}};
  p.jitLoader = {{kBase + 0x8000, kBase + 0x9000}};
  PublishPlan plan = p.publish();
  EXPECT_EQ(plan.added(), 1u);
  EXPECT_EQ(plan.shadowed(), 1u) << "the loader's code is not 'shadowed'";
  EXPECT_EQ(plan.namedByJitLoader(), 1u);
  for (const PublishPlan::Step *step : steps(plan))
    for (const Symbol *symbol : step->anew->symbols)
      EXPECT_EQ(p.table.name(*symbol), "ours");
}

TEST(PublishPlan, EachRegionGetsItsOwnStep) {
  // Three runs of JIT memory with unmapped gaps between: three regions, in
  // address order; then a delta for the middle one only.
  Process p;
  p.mappings.clear();
  for (uint64_t r = 0; r < 3; ++r)
    p.mappings.push_back(anon(kBase + 2 * r * kRun, kBase + (2 * r + 1) * kRun));
  for (uint64_t r = 0; r < 3; ++r)
    p.table.add(kBase + 2 * r * kRun + 0x100, 0x40, "f" + std::to_string(r));
  PublishPlan first = p.publish();
  auto all = steps(first);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_LT(all[0]->key, all[1]->key);
  EXPECT_LT(all[1]->key, all[2]->key);
  p.table.add(kBase + 2 * kRun + 0x800, 0x40, "g");
  PublishPlan second = p.publish();
  all = steps(second);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]->why, RemakeReason::Delta);
  EXPECT_EQ(all[0]->key, kBase + 2 * kRun);
}

TEST(PublishPlan, PhpCodeOnTheVmFrameIsToldByItsName) {
  SymbolTable table;
  table.add(kBase + 0x100, 0x40, "JIT$foo");
  RuntimeFrame frame;
  frame.cfaOffset = 16;
  int reads = 0;
  EntryProbe probe = runtimeAwareProbe(table, frame, [&](uint64_t, uint64_t) {
    ++reads;
    return EntryRule{FramePointer::Kept, std::nullopt};
  });
  EXPECT_EQ(probe(kBase + 0x100, 0x40).framePointer, FramePointer::RuntimeFrame);
  EXPECT_EQ(reads, 0);
  EXPECT_TRUE(wantsRuntimeFrame(table, {table.findByAddress(kBase + 0x100)}));
  // Without the frame, the entry is read.
  EntryProbe plain = runtimeAwareProbe(table, std::nullopt, [&](uint64_t, uint64_t) {
    ++reads;
    return EntryRule{FramePointer::Kept, std::nullopt};
  });
  EXPECT_EQ(plain(kBase + 0x100, 0x40).framePointer, FramePointer::Kept);
  EXPECT_EQ(reads, 1);
}
