// The plugin's reader of function entries: answers read ahead on a thread of
// their own match those read in one batch, and what the direct read cannot
// give (unreadable, under a trap) comes from the caller's reader instead.
#include "FunctionEntries.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using namespace jitsym;
using namespace jitsym::plugin;

namespace {

const std::string kKeeps("\x55\x48\x89\xe5\x90\x90\x90\x90", 8);   // push rbp; mov rbp, rsp
const std::string kFrameless("\x48\x83\xec\x18\x90\x90\x90\x90", 8); // sub rsp, 24

// Functions of 8 bytes, 0x100 apart: even ones keep a frame pointer.
constexpr uint64_t kBase = 0x7f0000000000;
uint64_t functionAt(size_t i) { return kBase + i * 0x100; }

std::vector<std::pair<uint64_t, uint64_t>> functions(size_t n) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t i = 0; i < n; ++i)
    out.emplace_back(functionAt(i), 8);
  return out;
}

std::string memoryAt(uint64_t address) {
  return ((address - kBase) / 0x100) % 2 == 0 ? kKeeps : kFrameless;
}

// A process's memory: what each reader was asked for is counted.
struct FakeMemory {
  std::atomic<size_t> directPieces{0}, lldbPieces{0};
  std::vector<uint64_t> unreadable; // direct reads of these fail
  std::string lldbAnswer;           // what LLDB gives (empty: the memory)

  FunctionEntries::ReadPieces lldb() {
    return [this](const std::vector<AddressRange> &pieces) {
      lldbPieces += pieces.size();
      std::vector<std::string> out;
      for (const AddressRange &piece : pieces)
        out.push_back(lldbAnswer.empty() ? memoryAt(piece.start) : lldbAnswer);
      return out;
    };
  }
  FunctionEntries::ReadPieces direct() {
    return [this](const std::vector<AddressRange> &pieces) {
      directPieces += pieces.size();
      std::vector<std::string> out;
      for (const AddressRange &piece : pieces)
        out.push_back(piece.containsAny(unreadable) ? std::string() : memoryAt(piece.start));
      return out;
    };
  }
};

} // namespace

TEST(FunctionEntries, ReadAheadGivesWhatABatchGives) {
  FakeMemory memory;
  FunctionEntries ahead(kX86_64, memory.lldb(), memory.direct());
  ahead.readAhead(functions(5000), {});
  for (size_t i = 0; i < 5000; ++i)
    ASSERT_EQ(ahead.at(functionAt(i), 8).framePointer, i % 2 == 0 ? FramePointer::Kept : FramePointer::NotKept)
        << i;
  EXPECT_EQ(memory.directPieces, 5000u);
  EXPECT_EQ(memory.lldbPieces, 0u);

  FakeMemory batchMemory;
  FunctionEntries batch(kX86_64, batchMemory.lldb());
  batch.prefetch(functions(5000));
  for (size_t i = 0; i < 5000; ++i)
    ASSERT_EQ(batch.at(functionAt(i), 8), ahead.at(functionAt(i), 8)) << i;
  EXPECT_EQ(batchMemory.lldbPieces, 5000u);
}

TEST(FunctionEntries, TrapsAndUnreadablePiecesGoThroughLLDB) {
  FakeMemory memory;
  memory.unreadable = {functionAt(10) + 2};
  memory.lldbAnswer = kFrameless; // what LLDB reads under its trap
  FunctionEntries entries(kX86_64, memory.lldb(), memory.direct());
  // A trap at function 2's entry (even: the direct read sees Kept bytes).
  entries.readAhead(functions(3000), {functionAt(2)});
  EXPECT_EQ(entries.at(functionAt(0), 8).framePointer, FramePointer::Kept);
  EXPECT_EQ(entries.at(functionAt(2), 8).framePointer, FramePointer::NotKept);  // LLDB's answer
  EXPECT_EQ(entries.at(functionAt(10), 8).framePointer, FramePointer::NotKept); // unreadable directly
  EXPECT_EQ(entries.at(functionAt(2999), 8).framePointer, FramePointer::NotKept);
  EXPECT_EQ(memory.lldbPieces, 2u);
  // Not read ahead: read alone, through LLDB.
  EXPECT_EQ(entries.at(functionAt(3000), 8).framePointer, FramePointer::NotKept);
  EXPECT_EQ(memory.lldbPieces, 3u);
}

TEST(FunctionEntries, WithoutADirectReadItIsOneBatch) {
  FakeMemory memory;
  FunctionEntries entries(kX86_64, memory.lldb());
  entries.readAhead(functions(100), {});
  EXPECT_EQ(memory.lldbPieces, 100u);
  EXPECT_EQ(entries.at(functionAt(4), 8).framePointer, FramePointer::Kept);
  EXPECT_EQ(memory.lldbPieces, 100u);
}

TEST(FunctionEntries, AtWaitsForTheReader) {
  // A direct read held until let go: `at` for a late function must wait for
  // it, not read it itself.
  FakeMemory memory;
  std::atomic<bool> open{false};
  FunctionEntries::ReadPieces direct = memory.direct();
  FunctionEntries entries(kX86_64, memory.lldb(), [&](const std::vector<AddressRange> &pieces) {
    while (!open)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return direct(pieces);
  });
  entries.readAhead(functions(4000), {});
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    open = true;
  });
  EXPECT_EQ(entries.at(functionAt(3998), 8).framePointer, FramePointer::Kept);
  opener.join();
  EXPECT_EQ(memory.lldbPieces, 0u);
}

TEST(FunctionEntries, StopsReadingWhenDone) {
  // Destroyed with most of the reading left: it stops between chunks.
  FakeMemory memory;
  std::atomic<size_t> calls{0};
  FunctionEntries::ReadPieces direct = memory.direct();
  {
    FunctionEntries entries(kX86_64, memory.lldb(), [&](const std::vector<AddressRange> &pieces) {
      ++calls;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return direct(pieces);
    });
    entries.readAhead(functions(100 * 1024), {});
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_LT(calls, 10u);
}

TEST(FunctionEntries, RememberedEntriesAreNotRead) {
  // What a module LLDB has says of old code is kept (a HotSpot method made
  // not entrant has a jump written over its entry: its frames still follow
  // the prologue it was compiled with).
  FakeMemory memory;
  FunctionEntries entries(kX86_64, memory.lldb(), memory.direct());
  entries.remember({{functionAt(0), 8, {FramePointer::NotKept, {}}}, {functionAt(1), 8, {FramePointer::Kept, {}}}});
  entries.readAhead({{functionAt(2), 8}}, {});
  EXPECT_EQ(entries.at(functionAt(0), 8).framePointer, FramePointer::NotKept); // memory says Kept
  EXPECT_EQ(entries.at(functionAt(1), 8).framePointer, FramePointer::Kept);    // memory says NotKept
  EXPECT_EQ(entries.at(functionAt(2), 8).framePointer, FramePointer::Kept);
  EXPECT_EQ(memory.directPieces, 1u);
  EXPECT_EQ(memory.lldbPieces, 0u);
}
