// The collector's translation of Intel JIT API events: the seed's line table
// example, inline lines laid over the parent's, updates and unloads, and the
// options. The sink records what the collector would write.
#include "CollectorOptions.h"
#include "EventTranslator.h"
#include "jitsym/jitprofiling.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace jitsym;
using namespace jitsym::jitprofiling;

namespace {

struct RecordingSink final : CodeSink {
  std::vector<std::string> calls;
  void load(uint64_t address, uint64_t size, const std::string &name,
            const std::vector<DebugLineFields> &lines) override {
    std::ostringstream text;
    text << "load " << name << " +" << address - base << " size " << size;
    for (const DebugLineFields &line : lines)
      text << " " << line.address - address << ":" << line.line;
    calls.push_back(text.str());
  }
  void unload(uint64_t address) override {
    calls.push_back("unload +" + std::to_string(address - base));
  }
  void shutdown() override { calls.push_back("shutdown"); }
  uint64_t base = 0;
};

struct TranslatorTest : ::testing::Test {
  char code[256] = {};
  RecordingSink sink;
  EventTranslator translator{sink};
  char source[16] = "prog.mini";
  void SetUp() override { sink.base = reinterpret_cast<uint64_t>(code); }

  iJIT_Method_Load method(unsigned int id, const char *name, size_t at, unsigned int size,
                          std::vector<LineNumberInfo> *lines = nullptr) {
    iJIT_Method_Load load{};
    load.method_id = id;
    load.method_name = const_cast<char *>(name);
    load.method_load_address = code + at;
    load.method_size = size;
    if (lines) {
      load.line_number_size = static_cast<unsigned int>(lines->size());
      load.line_number_table = lines->data();
      load.source_file_name = source;
    }
    return load;
  }
  using Calls = std::vector<std::string>;
};

} // namespace

// Seed 004's example: offsets 1, 12, 15, 18, 21 with lines 2, 4, 2, 1, 30 are
// the ranges 0-1: 2, 1-12: 4, 12-15: 2, 15-18: 1, 18-21: 30.
TEST_F(TranslatorTest, EachOffsetEndsItsRange) {
  std::vector<LineNumberInfo> lines{{1, 2}, {12, 4}, {15, 2}, {18, 1}, {21, 30}};
  auto load = method(1000, "f", 0, 24, &lines);
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load).value, 1u);
  // Bytes 21-24 are in no range: line 0 (no line) from 21.
  EXPECT_EQ(sink.calls, Calls{"load f +0 size 24 0:2 1:4 12:2 15:1 18:30 21:0"});
}

TEST_F(TranslatorTest, InlineLinesLieOverTheParentsWhenEitherComesFirst) {
  std::vector<LineNumberInfo> parentLines{{8, 10}, {32, 11}};
  std::vector<LineNumberInfo> inlineLines{{4, 3}, {8, 4}};
  iJIT_Method_Inline_Load inlined{2001, 2000, const_cast<char *>("g"), code + 12, 8,
                                  2, inlineLines.data(), nullptr, source};
  // Before its parent: kept until the parent comes.
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inlined).value, 1u);
  EXPECT_TRUE(sink.calls.empty());
  auto parent = method(2000, "f", 0, 32, &parentLines);
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &parent);
  EXPECT_EQ(sink.calls, Calls{"load f +0 size 32 0:10 8:11 12:3 16:4 20:11"});

  // After its parent: the parent is written again with the inline's lines.
  auto other = method(3000, "h", 64, 32, &parentLines);
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &other);
  inlined = {3001, 3000, const_cast<char *>("g"), code + 64 + 12, 8, 2, inlineLines.data(),
             nullptr, source};
  translator.handle(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inlined);
  EXPECT_EQ(sink.calls.back(), "load h +64 size 32 0:10 8:11 12:3 16:4 20:11");
}

TEST_F(TranslatorTest, UpdateMovesTheCodeAndUnloadRemovesIt) {
  auto load = method(4000, "f", 0, 16);
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
  auto moved = method(4000, nullptr, 32, 20); // no name: it keeps its own
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_UPDATE, &moved).value, 1u);
  unsigned int id = 4000;
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &id).value, 1u);
  EXPECT_EQ(sink.calls,
            (Calls{"load f +0 size 16", "unload +0", "load f +32 size 20", "unload +32"}));
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &id).value, 0u);
}

TEST_F(TranslatorTest, CodeTakenByAnotherMethodIsNotUnloadedWithTheFirst) {
  auto first = method(5000, "first", 0, 16), second = method(5001, "second", 0, 16);
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &first);
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &second); // same code, reused
  unsigned int id = 5000;
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &id).value, 1u);
  EXPECT_EQ(sink.calls, (Calls{"load first +0 size 16", "load second +0 size 16"}));
}

TEST_F(TranslatorTest, ModuleNameFollowsTheMethodName) {
  iJIT_Method_Load_V2 load{6000, const_cast<char *>("compute"), code, 8, 0, nullptr,
                           nullptr, nullptr, const_cast<char *>("regex")};
  translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &load);
  EXPECT_EQ(sink.calls, Calls{"load compute [regex] +0 size 8"});
}

TEST_F(TranslatorTest, ShutdownClosesOnceAndLaterEventsAreIgnored) {
  EXPECT_EQ(translator.handle(iJVM_EVENT_TYPE_SHUTDOWN, nullptr).value, 1u);
  auto load = method(7000, "late", 0, 8);
  const EventResult late = translator.handle(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
  EXPECT_EQ(late.value, 0u);
  EXPECT_EQ(late.message, "METHOD_LOAD_FINISHED ignored: it came after SHUTDOWN");
  EXPECT_EQ(sink.calls, Calls{"shutdown"});
}

TEST(CollectorOptions, TokensAndErrors) {
  std::string error;
  auto options = parseCollectorOptions("dir=/var/jit,perfmap,quiet", error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->directory, "/var/jit");
  EXPECT_TRUE(options->perfMap && options->quiet && !options->help);
  EXPECT_TRUE(parseCollectorOptions("", error));
  EXPECT_FALSE(parseCollectorOptions("dir=", error));
  EXPECT_EQ(error, "dir= needs a path in 'dir='");
  EXPECT_FALSE(parseCollectorOptions("perfmap,,quiet", error));
  EXPECT_EQ(error, "empty option in 'perfmap,,quiet'");
}
