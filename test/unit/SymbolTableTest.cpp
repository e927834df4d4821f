// SymbolTable: later announcements replace overlapped symbols, lookups, and the
// change log handed to the debugger.
#include "jitsym/symbols/SymbolTable.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace jitsym;

namespace {

struct Live {
  uint64_t address, size;
  std::string name;
  bool operator==(const Live &o) const {
    return address == o.address && size == o.size && name == o.name;
  }
};

std::ostream &operator<<(std::ostream &os, const Live &l) {
  return os << "{0x" << std::hex << l.address << ", 0x" << l.size << std::dec << ", "
            << l.name << "}";
}

std::vector<Live> contents(const SymbolTable &t) {
  std::vector<Live> out;
  t.forEach([&](const Symbol &s) { out.push_back({s.address, s.size, std::string(t.name(s))}); });
  return out;
}

std::vector<Live> addedOf(const SymbolTable &t, const SymbolChanges &c) {
  std::vector<Live> out;
  for (const Symbol *s : c.added)
    out.push_back({s->address, s->size, std::string(t.name(*s))});
  return out;
}

std::vector<std::pair<uint64_t, uint64_t>> removedOf(const SymbolChanges &c) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const RemovedRange &r : c.removed)
    out.emplace_back(r.address, r.end);
  std::sort(out.begin(), out.end());
  return out;
}

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

} // namespace

TEST(SymbolTable, AddKeepsAddressOrderAndSequence) {
  SymbolTable t;
  t.add(0x3000, 0x10, "c");
  t.add(0x1000, 0x10, "a");
  t.add(0x2000, 0x10, "b");
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x1000, 0x10, "a"}, {0x2000, 0x10, "b"}, {0x3000, 0x10, "c"}}));
  EXPECT_EQ(t.findByAddress(0x3000)->sequence, 1u);
  EXPECT_EQ(t.findByAddress(0x1000)->sequence, 2u);
  EXPECT_EQ(t.findByAddress(0x2000)->sequence, 3u);
  EXPECT_EQ(t.replacedCount(), 0u);
}

// Announcements are batched until the next query; every overlap rule must give
// the same table whether the batch is applied at once or after each add.
class SymbolTableOverlap : public ::testing::TestWithParam<bool> {
protected:
  void add(uint64_t address, uint64_t size, std::string_view name) {
    t.add(address, size, name);
    if (GetParam())
      (void)t.size(); // apply now
  }
  bool incremental() const { return GetParam(); }
  SymbolTable t;
};

INSTANTIATE_TEST_SUITE_P(Batching, SymbolTableOverlap, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? std::string("EachAdd") : std::string("OneBatch");
                         });

TEST_P(SymbolTableOverlap, AdjacentSymbolsDoNotReplace) {
  add(0x1000, 0x100, "a");
  add(0x1100, 0x100, "b");
  add(0xf00, 0x100, "c");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0xf00, 0x100, "c"}, {0x1000, 0x100, "a"}, {0x1100, 0x100, "b"}}));
  EXPECT_EQ(t.replacedCount(), 0u);
}

TEST_P(SymbolTableOverlap, PartialOverlapAtStartReplaces) {
  add(0x1000, 0x100, "old");
  // New symbol starts before and ends inside the old one.
  add(0xf80, 0x100, "new");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0xf80, 0x100, "new"}}));
  if (incremental()) {
    EXPECT_EQ(t.replacedCount(), 1u);
  }
}

TEST_P(SymbolTableOverlap, PartialOverlapAtEndReplaces) {
  add(0x1000, 0x100, "old");
  // New symbol starts inside the old one and ends after it.
  add(0x10ff, 0x100, "new");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x10ff, 0x100, "new"}}));
  EXPECT_EQ(t.findByAddress(0x1000), nullptr);
}

TEST_P(SymbolTableOverlap, OlderSymbolAtHigherAddressLoses) {
  // In address order the newer symbol comes first: it must still win.
  add(0x1080, 0x10, "older-inside");
  add(0x2000, 0x10, "keep");
  add(0x1000, 0x100, "newer-cover");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x1000, 0x100, "newer-cover"}, {0x2000, 0x10, "keep"}}));
}

TEST_P(SymbolTableOverlap, NewerSymbolInsideOlderCoverWins) {
  add(0x1000, 0x100, "older-cover");
  add(0x1080, 0x10, "newer-inside");
  add(0x10f0, 0x10, "newer-tail");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x1080, 0x10, "newer-inside"}, {0x10f0, 0x10, "newer-tail"}}));
}

TEST_P(SymbolTableOverlap, OneNewCoversSeveralOld) {
  add(0x0f00, 0x100, "before");
  add(0x1000, 0x10, "a");
  add(0x1010, 0x10, "b");
  add(0x1080, 0x0, "zero");
  add(0x10f0, 0x20, "c");
  add(0x1200, 0x10, "after");
  add(0x1000, 0x100, "big");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x0f00, 0x100, "before"},
                                            {0x1000, 0x100, "big"},
                                            {0x1200, 0x10, "after"}}));
  // The four symbols "big" covered, whether applied one by one or as a batch.
  EXPECT_EQ(t.replacedCount(), 4u);
}

TEST_P(SymbolTableOverlap, SameAddressDifferentNameOrSizeReplaces) {
  add(0x1000, 0x100, "a");
  add(0x1000, 0x100, "b");
  add(0x1000, 0x80, "b");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x1000, 0x80, "b"}}));
}

TEST_P(SymbolTableOverlap, LastOfManyAtOneAddressWins) {
  for (int i = 0; i < 1000; ++i)
    add(0x5000, 0x10 + i % 7, "v" + std::to_string(i));
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x5000, 0x10 + 999 % 7, "v999"}}));
}

TEST_P(SymbolTableOverlap, ZeroSizeSymbolsOccupyOneByte) {
  add(0x1000, 0, "z");
  add(0x1001, 0, "y"); // right after it: no overlap
  add(0xfff, 1, "x");  // right before it: no overlap
  EXPECT_EQ(contents(t), (std::vector<Live>{{0xfff, 1, "x"}, {0x1000, 0, "z"}, {0x1001, 0, "y"}}));
  const Symbol *s = t.findByAddress(0x1000);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->end(), 0x1001u);
  EXPECT_EQ(t.name(*t.findByAddress(0x1001)), "y");
  // A symbol covering them replaces them.
  add(0xff0, 0x20, "cover");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0xff0, 0x20, "cover"}}));
}

TEST_P(SymbolTableOverlap, UnsortedBatchWithDistantAddresses) {
  // Addresses that differ in every 16-bit digit, announced out of order.
  const uint64_t addresses[] = {0x7fff00010000, 0x0000000000001000, 0x5555aaaa0000,
                                0xffffffff00000000, 0x00000001ffff0000, 0x7fff00000000};
  for (uint64_t a : addresses)
    add(a, 0x100, "s" + std::to_string(a));
  add(0x7fff00010080, 0x10, "newer-inside"); // replaces the first one
  std::vector<Live> got = contents(t);
  ASSERT_EQ(got.size(), 6u);
  for (size_t i = 1; i < got.size(); ++i)
    EXPECT_LT(got[i - 1].address, got[i].address);
  EXPECT_EQ(t.name(*t.findByAddress(0x7fff00010085)), "newer-inside");
  EXPECT_EQ(t.findByAddress(0x7fff00010000), nullptr);
  EXPECT_EQ(t.name(*t.findByAddress(0xffffffff000000ff)), "s" + std::to_string(0xffffffff00000000));
}

TEST(SymbolTable, ReplacedCountIndependentOfBatching) {
  // Regression test: replacedCount() counts the symbols that later
  // announcements removed, the same whether the announcements were applied one
  // by one or as one batch (it once missed replacements inside a batch).
  SymbolTable t;
  t.add(0x1000, 0x100, "old");
  t.add(0xf80, 0x100, "new");
  EXPECT_EQ(t.replacedCount(), 1u);
}

TEST(SymbolTable, IdenticalReannouncementIsUnchanged) {
  SymbolTable t;
  t.add(0x1000, 0x100, "a");
  t.add(0x2000, 0, "zero");
  uint64_t seq = t.findByAddress(0x1000)->sequence;
  t.takeChanges();
  t.add(0x1000, 0x100, "a");
  t.add(0x2000, 0, "zero");
  EXPECT_EQ(t.findByAddress(0x1000)->sequence, seq);
  EXPECT_TRUE(t.takeChanges().empty());
  EXPECT_EQ(t.replacedCount(), 0u);
  EXPECT_EQ(t.size(), 2u);
  // Announced again several times in one batch: still nothing new.
  for (int i = 0; i < 3; ++i)
    t.add(0x1000, 0x100, "a");
  EXPECT_TRUE(t.takeChanges().empty());
  EXPECT_EQ(t.findByAddress(0x1000)->sequence, seq);
}

TEST(SymbolTable, SameNameDifferentSizeIsNotIdentical) {
  SymbolTable t;
  t.add(0x1000, 0x100, "a");
  t.takeChanges();
  t.add(0x1000, 0x101, "a");
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1000, 0x1100}}));
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1000, 0x101, "a"}}));
}

// Random announcements against a naive model of "a later announcement removes
// every symbol it overlaps". Policy: 0 = one batch, 1 = apply after each add,
// 2 = queries and publications at random points.
void randomAgainstModel(int policy) {
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 50; ++round) {
    SymbolTable t;
    std::map<uint64_t, Live> model;
    for (int i = 0; i < 400; ++i) {
      uint64_t address = 0x10000 + (rng() % 0x800) * 4;
      uint64_t size = rng() % 4 == 0 ? 0 : (rng() % 0x40) * 4;
      std::string name = "f" + std::to_string(rng() % 50);
      t.add(address, size, name);
      uint64_t end = address + (size ? size : 1);
      auto it = model.upper_bound(address);
      if (it != model.begin()) {
        auto prev = std::prev(it);
        if (prev->first + (prev->second.size ? prev->second.size : 1) > address)
          it = prev;
      }
      while (it != model.end() && it->first < end)
        it = model.erase(it);
      model[address] = Live{address, size, name};
      if (policy == 1 || (policy == 2 && rng() % 16 == 0))
        (void)t.findByAddress(address);
      if (policy == 2 && rng() % 32 == 0)
        t.takeChanges();
    }
    std::vector<Live> expected;
    for (const auto &entry : model)
      expected.push_back(entry.second);
    ASSERT_EQ(contents(t), expected) << "round " << round;
  }
}

TEST(SymbolTable, RandomAnnouncementsInOneBatchMatchModel) { randomAgainstModel(0); }
TEST(SymbolTable, RandomAnnouncementsAppliedEachMatchModel) { randomAgainstModel(1); }

TEST(SymbolTable, RandomAnnouncementsWithQueriesMatchModel) {
  // Regression test for a fixed bug: see DeadBatchSymbolStillRemovesLiveOne.
  randomAgainstModel(2);
}

// A large load as the reader does it: names written into the table's storage,
// the first part announced with add(), the second collected with describe()
// and handed over with addBatch(). Large enough for the two-thread sort and
// merge; `spread` decides whether the packed 64-bit sort keys fit.
void largeBatchesAgainstModel(uint64_t spread) {
  std::mt19937_64 rng(777);
  constexpr size_t kCount = 300000;
  struct Announced {
    uint64_t address, size;
    std::string name;
  };
  std::vector<Announced> announced;
  size_t nameBytes = 0;
  for (size_t i = 0; i < kCount; ++i) {
    uint64_t address = 0x10000 + (rng() % spread) * 0x10;
    uint64_t size = rng() % 8 == 0 ? 0 : (rng() % 8) * 0x10;
    announced.push_back({address, size, "fn_" + std::to_string(i)});
    nameBytes += announced.back().name.size();
  }
  SymbolTable t;
  char *storage = t.growNameStorage(nameBytes);
  std::vector<std::string_view> held;
  for (const Announced &a : announced) {
    std::copy(a.name.begin(), a.name.end(), storage);
    held.emplace_back(storage, a.name.size());
    storage += a.name.size();
  }
  BigArray<Symbol> second;
  for (size_t i = 0; i < kCount; ++i) {
    if (i < kCount / 2) {
      t.add(announced[i].address, announced[i].size, held[i]);
      continue;
    }
    Symbol symbol;
    ASSERT_TRUE(t.describe(announced[i].address, announced[i].size, held[i], symbol));
    second.push_back(symbol);
  }
  t.addBatch(std::move(second));

  std::map<uint64_t, Live> model;
  for (const Announced &a : announced) {
    uint64_t end = a.address + (a.size ? a.size : 1);
    auto it = model.upper_bound(a.address);
    if (it != model.begin()) {
      auto prev = std::prev(it);
      if (prev->first + (prev->second.size ? prev->second.size : 1) > a.address)
        it = prev;
    }
    while (it != model.end() && it->first < end)
      it = model.erase(it);
    model[a.address] = Live{a.address, a.size, a.name};
  }
  std::vector<Live> expected;
  for (const auto &entry : model)
    expected.push_back(entry.second);
  ASSERT_EQ(contents(t), expected);
  // Announcement order numbers the symbols across both batches.
  uint64_t previous = 0;
  std::vector<uint64_t> sequences;
  t.forEach([&](const Symbol &s) { sequences.push_back(s.sequence); });
  std::sort(sequences.begin(), sequences.end());
  for (uint64_t sequence : sequences) {
    EXPECT_GT(sequence, previous);
    EXPECT_LE(sequence, kCount);
    previous = sequence;
  }
  const Symbol *last = t.findByAddress(announced.back().address);
  ASSERT_NE(last, nullptr);
  EXPECT_EQ(last->sequence, kCount);
}

TEST(SymbolTable, LargeBatchesFromNameStorageMatchModel) {
  largeBatchesAgainstModel(1 << 18); // crowded: many overlaps, packed keys
}

TEST(SymbolTable, LargeBatchesAcrossTheAddressSpaceMatchModel) {
  largeBatchesAgainstModel(uint64_t(1) << 59); // too wide for packed keys
}

TEST(SymbolTable, NamesInStorageAreNotCopied) {
  SymbolTable t;
  char *storage = t.growNameStorage(8);
  std::copy_n("abcdefgh", 8, storage);
  const size_t before = t.memoryBytes();
  t.add(0x1000, 0x10, std::string_view(storage, 3));
  t.add(0x2000, 0x10, std::string_view(storage + 3, 5));
  t.add(0x3000, 0x10, "copied");
  t.shrinkNameStorage(0);
  EXPECT_EQ(t.name(*t.findByAddress(0x1000)), "abc");
  EXPECT_EQ(t.name(*t.findByAddress(0x2000)).data(), t.name(*t.findByAddress(0x1000)).data() + 3);
  EXPECT_EQ(t.name(*t.findByAddress(0x3000)), "copied");
  EXPECT_GE(t.memoryBytes(), before);
}

TEST(SymbolTable, DeadBatchSymbolStillRemovesLiveOne) {
  // Regression test for a fixed bug: SymbolTable::flush (SymbolTable.cpp, step 3: `if (dead[i]) continue;`)
  // only lets batch *survivors* remove live symbols. When a batch holds D that a
  // later announcement K of the same batch replaces, the live symbols that only
  // D overlapped stay live, although their memory was reused by D. Perf map:
  //   "1000 10 L\n"                 (read and queried: L is live)
  //   "1000 100 D\n1080 10 K\n"    (appended, one batch)
  // gives {L, K} instead of {K}; findByAddress(0x1000) still returns "L".
  SymbolTable t;
  t.add(0x1000, 0x10, "L");
  (void)t.size();
  t.add(0x1000, 0x100, "D");
  t.add(0x1080, 0x10, "K");
  EXPECT_EQ(contents(t), (std::vector<Live>{{0x1080, 0x10, "K"}}));
  EXPECT_EQ(t.findByAddress(0x1000), nullptr);
}

TEST(SymbolTable, FindByAddressBoundaries) {
  SymbolTable t;
  t.add(0x1000, 0x100, "a");
  t.add(0x2000, 0x10, "b");
  EXPECT_EQ(t.findByAddress(0), nullptr);
  EXPECT_EQ(t.findByAddress(0xfff), nullptr);
  ASSERT_NE(t.findByAddress(0x1000), nullptr);
  EXPECT_EQ(t.name(*t.findByAddress(0x1000)), "a");
  EXPECT_EQ(t.name(*t.findByAddress(0x10ff)), "a");
  EXPECT_EQ(t.findByAddress(0x1100), nullptr); // end is exclusive
  EXPECT_EQ(t.findByAddress(0x1fff), nullptr);
  EXPECT_EQ(t.name(*t.findByAddress(0x200f)), "b");
  EXPECT_EQ(t.findByAddress(0x2010), nullptr);
  EXPECT_EQ(t.findByAddress(UINT64_MAX), nullptr);
}

TEST(SymbolTable, SymbolEndingAtTopOfAddressSpace) {
  SymbolTable t;
  t.add(0xffffffffffffff00, 0xff, "top");
  ASSERT_NE(t.findByAddress(0xfffffffffffffffe), nullptr);
  EXPECT_EQ(t.findByAddress(UINT64_MAX), nullptr);
}

TEST(SymbolTable, ManyOverlappingAnnouncementsInOneBatchAreNotQuadratic) {
  // Regression test for a fixed bug: SymbolTable::flush step 2 compares every batch symbol with every later
  // one that starts before its end, so k announcements of the same range in
  // one batch cost O(k^2): 100,000 lines "1000 10 f" take ~2.2 s to apply
  // (50,000: 0.55 s), and a 1M-line map reusing one address would take minutes.
  SymbolTable t;
  for (int i = 0; i < 100000; ++i)
    t.add(0x1000, 0x10, "f");
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(t.size(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
}

TEST(SymbolTable, RangesWrappingPastTheAddressSpaceAreRefused) {
  // A zero-size symbol occupies its first byte, so one at the very last address
  // would end past 2^64: the table (like the parser) refuses it rather than
  // keeping a range whose end wraps to 0 and breaks every overlap test.
  SymbolTable t;
  t.add(UINT64_MAX, 0, "last");
  t.add(UINT64_MAX - 0xf, 0x20, "wraps");
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.findByAddress(UINT64_MAX), nullptr);
  t.add(UINT64_MAX - 0xf, 0xf, "fits");
  ASSERT_NE(t.findByAddress(UINT64_MAX - 1), nullptr);
  EXPECT_EQ(t.name(*t.findByAddress(UINT64_MAX - 1)), "fits");
}

TEST(SymbolTable, FindByNameSeveralAndAfterReplacement) {
  SymbolTable t;
  t.add(0x3000, 0x10, "dup");
  t.add(0x1000, 0x10, "dup");
  t.add(0x2000, 0x10, "other");
  t.add(0x4000, 0x10, "dupe");
  t.add(0x5000, 0x10, "du");
  auto found = t.findByName("dup");
  ASSERT_EQ(found.size(), 2u);
  std::vector<uint64_t> addresses{found[0]->address, found[1]->address};
  std::sort(addresses.begin(), addresses.end());
  EXPECT_EQ(addresses, (std::vector<uint64_t>{0x1000, 0x3000}));
  EXPECT_TRUE(t.findByName("missing").empty());
  EXPECT_TRUE(t.findByName("").empty());

  // Replace one "dup" and rename "other": the index must follow.
  t.add(0x1000, 0x10, "renamed");
  found = t.findByName("dup");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]->address, 0x3000u);
  ASSERT_EQ(t.findByName("renamed").size(), 1u);
  EXPECT_EQ(t.findByName("renamed")[0]->address, 0x1000u);
  t.add(0x2000, 0x10, "dup");
  EXPECT_EQ(t.findByName("dup").size(), 2u);
  EXPECT_TRUE(t.findByName("other").empty());
}

TEST(SymbolTable, ForEachInRange) {
  SymbolTable t;
  t.add(0x0f00, 0x200, "straddles"); // starts before the range
  t.add(0x1100, 0x10, "a");
  t.add(0x1800, 0x10, "b");
  t.add(0x2000, 0x10, "at-end");
  std::vector<std::string> seen;
  t.forEachInRange(0x1000, 0x2000, [&](const Symbol &s) { seen.emplace_back(t.name(s)); });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));
  seen.clear();
  t.forEachInRange(0x0f00, 0x1101, [&](const Symbol &s) { seen.emplace_back(t.name(s)); });
  EXPECT_EQ(seen, (std::vector<std::string>{"straddles", "a"}));
  seen.clear();
  t.forEachInRange(0x1801, 0x1900, [&](const Symbol &s) { seen.emplace_back(t.name(s)); });
  EXPECT_TRUE(seen.empty());
  t.forEachInRange(0, UINT64_MAX, [&](const Symbol &s) { seen.emplace_back(t.name(s)); });
  EXPECT_EQ(seen.size(), 4u);
}

TEST(SymbolTable, TakeChangesFirstPublication) {
  SymbolTable t;
  t.add(0x2000, 0x10, "b");
  t.add(0x1000, 0x10, "a");
  SymbolChanges c = t.takeChanges();
  EXPECT_TRUE(c.removed.empty());
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1000, 0x10, "a"}, {0x2000, 0x10, "b"}}));
  EXPECT_TRUE(t.takeChanges().empty());
}

TEST(SymbolTable, AddedExcludesSymbolsReplacedBeforePublication) {
  SymbolTable t;
  t.add(0x1000, 0x100, "first");
  t.add(0x1000, 0x100, "second");
  t.add(0x1050, 0x100, "third"); // replaces "second" too
  t.add(0x5000, 0x10, "gone");
  t.add(0x4ff8, 0x10, "kept");
  SymbolChanges c = t.takeChanges();
  // Nothing was published before, so nothing is reported as removed.
  EXPECT_TRUE(c.removed.empty());
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1050, 0x100, "third"}, {0x4ff8, 0x10, "kept"}}));
}

TEST(SymbolTable, RemovedListsOnlyPublishedSymbols) {
  SymbolTable t;
  t.add(0x1000, 0x100, "published");
  t.add(0x3000, 0, "published-zero");
  t.takeChanges();
  t.add(0x1000, 0x80, "unpublished"); // removes "published"
  t.add(0x1040, 0x80, "latest");      // removes "unpublished" (never seen)
  t.add(0x3000, 0x10, "cover");       // removes the zero-size one
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1000, 0x1100}, {0x3000, 0x3001}}));
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1040, 0x80, "latest"}, {0x3000, 0x10, "cover"}}));
  // The next round reports "latest" as removed once it is replaced.
  t.add(0x1040, 0x80, "again");
  c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1040, 0x10c0}}));
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1040, 0x80, "again"}}));
}

TEST(SymbolTable, ReplacedThenRestoredInOneBatchIsNoChange) {
  SymbolTable t;
  t.add(0x1000, 0x100, "a");
  t.takeChanges();
  uint64_t seq = t.findByAddress(0x1000)->sequence;
  t.add(0x1000, 0x100, "b");
  t.add(0x1000, 0x100, "a");
  // "b" never reached anyone and "a" is identical to what LLDB has.
  EXPECT_TRUE(t.takeChanges().empty());
  EXPECT_EQ(t.findByAddress(0x1000)->sequence, seq);
}

TEST(SymbolTable, ReplacedThenRestoredAcrossQueriesIsRemoveAndAdd) {
  SymbolTable t;
  t.add(0x1000, 0x100, "a");
  t.takeChanges();
  t.add(0x1000, 0x100, "b");
  (void)t.size();
  t.add(0x1000, 0x100, "a");
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1000, 0x1100}}));
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x1000, 0x100, "a"}}));
}

TEST(SymbolTable, ClearRemovesPublishedOnly) {
  SymbolTable t;
  t.add(0x1000, 0x10, "a");
  t.takeChanges();
  t.add(0x2000, 0x10, "b");
  t.clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.findByAddress(0x1000), nullptr);
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1000, 0x1010}}));
  EXPECT_TRUE(c.added.empty());
  // Usable again after clear.
  t.add(0x1000, 0x10, "c");
  EXPECT_EQ(t.name(*t.findByAddress(0x1000)), "c");
  EXPECT_EQ(t.findByName("c").size(), 1u);
}

TEST(SymbolTable, AssignReportsOnlyDifferences) {
  SymbolTable t;
  t.add(0x1000, 0x10, "same");
  t.add(0x2000, 0x10, "renamed-old");
  t.add(0x3000, 0x10, "resized");
  t.add(0x4000, 0x10, "dropped");
  t.add(0x6000, 0x10, "same-too");
  t.takeChanges();
  uint64_t sameSeq = t.findByAddress(0x1000)->sequence;

  SymbolTable fresh;
  fresh.add(0x0800, 0x10, "new-first");
  fresh.add(0x1000, 0x10, "same");
  fresh.add(0x2000, 0x10, "renamed-new");
  fresh.add(0x3000, 0x20, "resized");
  fresh.add(0x5000, 0x10, "new");
  fresh.add(0x6000, 0x10, "same-too");
  t.assign(std::move(fresh));

  EXPECT_EQ(contents(t), (std::vector<Live>{{0x0800, 0x10, "new-first"},
                                            {0x1000, 0x10, "same"},
                                            {0x2000, 0x10, "renamed-new"},
                                            {0x3000, 0x20, "resized"},
                                            {0x5000, 0x10, "new"},
                                            {0x6000, 0x10, "same-too"}}));
  EXPECT_EQ(t.findByAddress(0x1000)->sequence, sameSeq); // identity kept
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x2000, 0x2010}, {0x3000, 0x3010}, {0x4000, 0x4010}}));
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x0800, 0x10, "new-first"},
                                              {0x2000, 0x10, "renamed-new"},
                                              {0x3000, 0x20, "resized"},
                                              {0x5000, 0x10, "new"}}));
  EXPECT_EQ(t.findByName("same").size(), 1u);
  EXPECT_TRUE(t.findByName("dropped").empty());
}

TEST(SymbolTable, AssignIdenticalContentIsNoChange) {
  SymbolTable t, fresh;
  for (uint64_t i = 0; i < 100; ++i) {
    t.add(0x1000 + i * 0x20, 0x20, "f" + std::to_string(i));
    fresh.add(0x1000 + i * 0x20, 0x20, "f" + std::to_string(i));
  }
  t.takeChanges();
  t.assign(std::move(fresh));
  EXPECT_EQ(t.size(), 100u);
  EXPECT_TRUE(t.takeChanges().empty());
}

TEST(SymbolTable, AssignEmptyRemovesEverything) {
  SymbolTable t, fresh;
  t.add(0x1000, 0x10, "a");
  t.add(0x2000, 0x10, "b");
  t.takeChanges();
  t.assign(std::move(fresh));
  EXPECT_EQ(t.size(), 0u);
  SymbolChanges c = t.takeChanges();
  EXPECT_EQ(removedOf(c), (Ranges{{0x1000, 0x1010}, {0x2000, 0x2010}}));
  EXPECT_TRUE(c.added.empty());
}

TEST(SymbolTable, AssignBeforeAnyPublicationReportsNoRemovals) {
  SymbolTable t, fresh;
  t.add(0x1000, 0x10, "a");
  fresh.add(0x2000, 0x10, "b");
  t.assign(std::move(fresh));
  SymbolChanges c = t.takeChanges();
  EXPECT_TRUE(c.removed.empty());
  EXPECT_EQ(addedOf(t, c), (std::vector<Live>{{0x2000, 0x10, "b"}}));
}

TEST(SymbolTable, NameCompactionKeepsLiveNames) {
  SymbolTable t;
  const std::string pad(200, 'x');
  // 64 slots rewritten many times: > 1 MiB of dead names.
  constexpr int kSlots = 64, kRounds = 200;
  for (int round = 0; round < kRounds; ++round)
    for (int slot = 0; slot < kSlots; ++slot)
      t.add(0x10000 + slot * 0x100, 0x100,
            "r" + std::to_string(round) + "s" + std::to_string(slot) + pad);
  (void)t.size();
  size_t before = t.memoryBytes();
  t.takeChanges(); // compaction happens here
  size_t after = t.memoryBytes();
  size_t liveNameBytes = 0, allNameBytes = 0;
  for (int round = 0; round < kRounds; ++round)
    for (int slot = 0; slot < kSlots; ++slot) {
      size_t n = ("r" + std::to_string(round) + "s" + std::to_string(slot)).size() + pad.size();
      allNameBytes += n;
      liveNameBytes += round == kRounds - 1 ? n : 0;
    }
  ASSERT_GT(allNameBytes - liveNameBytes, size_t(1) << 20);
  EXPECT_EQ(t.size(), size_t(kSlots));
  for (int slot = 0; slot < kSlots; ++slot) {
    const Symbol *s = t.findByAddress(0x10000 + slot * 0x100);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(t.name(*s), "r" + std::to_string(kRounds - 1) + "s" + std::to_string(slot) + pad);
  }
  ASSERT_GT(before, after);
  EXPECT_GE(before - after, allNameBytes - liveNameBytes) << "dead names were not dropped";
  // Lookups by name still work after compaction, and later additions too.
  EXPECT_EQ(t.findByName("r199s7" + pad).size(), 1u);
  t.add(0x90000, 0x10, "afterwards");
  EXPECT_EQ(t.name(*t.findByAddress(0x90000)), "afterwards");
  EXPECT_EQ(t.name(*t.findByAddress(0x10000)), "r199s0" + pad);
}

TEST(SymbolTable, MemoryBytesPerSymbol) {
  SymbolTable t;
  constexpr size_t kCount = 100000;
  size_t nameBytes = 0;
  for (size_t i = 0; i < kCount; ++i) {
    std::string name = "JS:*function" + std::to_string(i);
    nameBytes += name.size();
    t.add(0x7f0000000000 + i * 0x40, 0x40, name);
  }
  t.takeChanges();
  (void)t.findByName("JS:*function5"); // builds the name index
  size_t bytes = t.memoryBytes();
  EXPECT_GE(bytes, nameBytes);
  // Names may sit in a buffer grown by doubling: allow twice their size.
  EXPECT_LT(bytes, kCount * 100 + 2 * nameBytes)
      << "per symbol: " << double(bytes - nameBytes) / kCount;
}

// Names are cut to kMaxSymbolNameBytes, held or copied, and never inside a
// UTF-8 character.
TEST(SymbolTable, OversizedNamesAreCutAtACharacterBoundary) {
  SymbolTable table;
  const std::string huge(kMaxSymbolNameBytes * 3, 'x');
  table.add(0x1000, 0x10, huge);
  // "é" (2 bytes) straddles the limit: the cut falls before it.
  std::string accented(kMaxSymbolNameBytes - 1, 'a');
  accented += "\xC3\xA9tail";
  table.add(0x2000, 0x10, accented);
  char *held = table.growNameStorage(huge.size());
  std::memcpy(held, huge.data(), huge.size());
  Symbol symbol;
  ASSERT_TRUE(table.describe(0x3000, 0x10, std::string_view(held, huge.size()), symbol));
  EXPECT_EQ(symbol.nameSize, kMaxSymbolNameBytes);

  EXPECT_EQ(table.name(*table.findByAddress(0x1000)), huge.substr(0, kMaxSymbolNameBytes));
  EXPECT_EQ(table.name(*table.findByAddress(0x2000)), accented.substr(0, kMaxSymbolNameBytes - 1));
  EXPECT_EQ(boundedSymbolName("short"), "short");
}

// The starts onOwnedGone reports, in order, after `apply` (which ends with a
// query, so the table applies what was announced).
namespace {
std::vector<uint64_t> goneAfter(SymbolTable &t, const std::function<void()> &apply) {
  std::vector<uint64_t> gone;
  t.onOwnedGone([&](uint64_t start) { gone.push_back(start); });
  apply();
  t.onOwnedGone(nullptr);
  return gone;
}
} // namespace

TEST(SymbolTable, ReportsEveryOwnedSymbolItDrops) {
  SymbolTable t;
  // Replaced in its own batch by an overlapping later announcement (of anyone).
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x1000, 0x40, "owned", kOwnedFlag);
              t.add(0x1020, 0x40, "map line");
              t.size();
            }),
            (std::vector<uint64_t>{0x1000}));
  // Replaced from a later batch, removed, moved over.
  t.add(0x2000, 0x40, "a", kOwnedFlag);
  t.add(0x3000, 0x40, "b", kOwnedFlag);
  t.add(0x4000, 0x40, "c", kOwnedFlag);
  t.size();
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x2010, 0x10, "d");
              t.remove(0x3000, 0x40);
              t.add(0x3ff0, 0x20, "e", kOwnedFlag);
              t.findByAddress(0);
            }),
            (std::vector<uint64_t>{0x2000, 0x3000, 0x4000}));
  // Unowned symbols are not reported.
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x2010, 0x10, "d again");
              t.size();
            }),
            (std::vector<uint64_t>{}));
  // assign() and clear().
  SymbolTable fresh;
  fresh.add(0x9000, 0x10, "new");
  EXPECT_EQ(goneAfter(t, [&] { t.assign(std::move(fresh)); }),
            (std::vector<uint64_t>{0x3ff0}));
  t.add(0x5000, 0x40, "f", kOwnedFlag);
  EXPECT_EQ(goneAfter(t, [&] { t.clear(); }), (std::vector<uint64_t>{0x5000}));
}

TEST(SymbolTable, AnOwnedSymbolAtTheSameStartKeepsTheStart) {
  SymbolTable t;
  t.add(0x1000, 0x40, "f", kOwnedFlag);
  t.size();
  // New code of the same announcer there, or the same code again (absorbed by
  // the live symbol): the announcer's data at 0x1000 is the newest's.
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x1000, 0x20, "g", kOwnedFlag);
              t.size();
            }),
            (std::vector<uint64_t>{}));
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x1000, 0x20, "g", kOwnedFlag);
              t.size();
            }),
            (std::vector<uint64_t>{}));
  EXPECT_EQ(t.takeChanges().added.size(), 1u); // "g" once
  // The same code named the same by someone else (a runtime's perf map
  // beside its jitdump): nothing changes, the announcer's data stays.
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x1000, 0x20, "g");
              t.size();
            }),
            (std::vector<uint64_t>{}));
  EXPECT_TRUE(t.takeChanges().empty());
  // Other code of someone else at the same start: gone.
  EXPECT_EQ(goneAfter(t, [&] {
              t.add(0x1000, 0x20, "h");
              t.size();
            }),
            (std::vector<uint64_t>{0x1000}));
}

TEST(SymbolTable, AMapSymbolAnnouncedAgainByTheJitdumpBecomesOwned) {
  // PHP writes each function to its perf map, then to its jitdump: LLDB has
  // the map's symbol; the jitdump's is the same, so nothing is remade, and
  // the jitdump's data for it is pruned when the code goes.
  SymbolTable t;
  std::vector<uint64_t> gone;
  t.onOwnedGone([&](uint64_t start) { gone.push_back(start); });
  t.add(0x1000, 0x40, "JIT$leaf");
  EXPECT_EQ(t.takeChanges().added.size(), 1u);
  t.add(0x1000, 0x40, "JIT$leaf", kOwnedFlag);
  EXPECT_TRUE(t.takeChanges().empty());
  ASSERT_NE(t.findByAddress(0x1000), nullptr);
  EXPECT_EQ(t.findByAddress(0x1000)->flags & kOwnedFlag, kOwnedFlag);
  t.add(0x1000, 0x40, "JIT$other");
  t.size();
  EXPECT_EQ(gone, (std::vector<uint64_t>{0x1000}));
}

TEST(SymbolTable, AnOwnedGoneHandlerMayQueryTheTable) {
  SymbolTable t;
  t.add(0x1000, 0x40, "f", kOwnedFlag);
  t.size();
  std::vector<bool> stillThere;
  t.onOwnedGone([&](uint64_t start) { stillThere.push_back(t.findByAddress(start) != nullptr); });
  t.add(0x1000, 0x10, "g");
  t.size();
  EXPECT_EQ(stillThere, (std::vector<bool>{true})); // "g" starts there now
}
