// The JVMTI agent's output files, read back by the core's parser: records are
// in the file when load() returns, unless writes are held (JVM startup); held
// records come out whole and in order on release or close; an unload is
// written only for the code the dump last placed at that address.
#include "JitOutput.h"
#include "FileText.h"
#include "TempDir.h"

#include "jitsym/formats/JitdumpParser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace jitsym;
using namespace jitsym::jvmti;

namespace {

using test::readFile;

// "LOAD name@addr", "UNLOAD addr" or "CLOSE" for each record of the dump.
std::vector<std::string> records(const std::string &path) {
  const std::string bytes = readFile(path);
  std::string error;
  EXPECT_TRUE(parseJitdumpHeader(bytes, error)) << error;
  std::vector<std::string> seen;
  for (size_t at = kJitdumpHeaderSize; at < bytes.size();) {
    JitdumpRecordParse parse = parseJitdumpRecord(std::string_view(bytes).substr(at), false);
    EXPECT_EQ(parse.kind, JitdumpRecordParse::Complete) << parse.error;
    if (parse.kind != JitdumpRecordParse::Complete || at + parse.record.size > bytes.size())
      return {"truncated"};
    std::ostringstream text;
    if (const auto *load = std::get_if<JitCodeLoad>(&parse.record.body))
      text << "LOAD " << load->name << "@" << std::hex << load->codeAddress;
    else if (const auto *unload = std::get_if<JitCodeUnload>(&parse.record.body))
      text << "UNLOAD " << std::hex << unload->codeAddress;
    else if (std::holds_alternative<JitCodeClose>(parse.record.body))
      text << "CLOSE";
    else if (std::holds_alternative<JitDebugInfo>(parse.record.body))
      text << "LINES";
    seen.push_back(text.str());
    at += parse.record.size;
  }
  return seen;
}

std::string hex(const void *address) {
  std::ostringstream text;
  text << std::hex << reinterpret_cast<uint64_t>(address);
  return text.str();
}

struct OutputTest : ::testing::Test {
  test::TempDir dir;
  std::unique_ptr<JitOutput> output;
  char code[2][64] = {};
  const int methodA = 0, methodB = 0; // stand-ins for jmethodIDs

  void SetUp() override {
    AgentOptions options;
    options.directory = dir.path();
    std::string error;
    output = JitOutput::open(options, error);
    ASSERT_TRUE(output) << error;
    EXPECT_EQ(output->dumpPath(), dir.file("jit-" + std::to_string(::getpid()) + ".dump"));
  }
  uint64_t at(int slot) const { return reinterpret_cast<uint64_t>(code[slot]); }
  std::vector<std::string> dump() const { return records(output->dumpPath()); }
};

} // namespace

TEST_F(OutputTest, RecordsAreInTheFileWhenLoadReturns) {
  output->load(&methodA, at(0), 64, "long Hot.work(int)", {{at(0), 7, 0, "Hot.java"}});
  EXPECT_EQ(dump(), (std::vector<std::string>{"LINES", "LOAD long Hot.work(int)@" + hex(code[0])}));
}

TEST_F(OutputTest, HeldRecordsComeOutInOrderOnRelease) {
  output->holdWrites();
  output->load(nullptr, at(0), 64, "Interpreter", {});
  output->load(&methodA, at(1), 64, "void A.a()", {});
  output->unload(&methodA, at(1));
  EXPECT_TRUE(dump().empty()); // the header only
  output->releaseWrites();
  EXPECT_EQ(dump(), (std::vector<std::string>{"LOAD Interpreter@" + hex(code[0]),
                                              "LOAD void A.a()@" + hex(code[1]),
                                              "UNLOAD " + hex(code[1])}));
  output->load(&methodB, at(1), 64, "void B.b()", {});
  EXPECT_EQ(dump().size(), 4u); // written at once again
}

TEST_F(OutputTest, LargeCodeIsWrittenAtOnceAfterWhatIsHeld) {
  std::vector<char> large(JitOutput::kCopiedCodeBytes + 1, '\xcc');
  const auto largeAt = reinterpret_cast<uint64_t>(large.data());
  output->holdWrites();
  output->load(nullptr, at(0), 64, "small", {});
  output->load(nullptr, largeAt, large.size(), "C1 temporary CodeBuffer", {});
  output->load(nullptr, at(1), 64, "after", {});
  const std::vector<std::string> written{"LOAD small@" + hex(code[0]),
                                         "LOAD C1 temporary CodeBuffer@" + hex(large.data())};
  EXPECT_EQ(dump(), written);
  output->releaseWrites();
  EXPECT_EQ(dump().back(), "LOAD after@" + hex(code[1]));
  // The large record's code bytes are the code's.
  const std::string bytes = readFile(output->dumpPath());
  EXPECT_NE(bytes.find(std::string(large.begin(), large.end())), std::string::npos);
}

TEST_F(OutputTest, ZeroRunsOfLargeCodeAreHolesThatReadBackAsZeros) {
  // Like HotSpot's C1 scratch buffer: a little code, then mostly zeros.
  std::vector<char> large(64 * 1024 + 100, '\0');
  std::fill_n(large.begin(), 100, '\xcc');
  std::fill_n(large.begin() + 40 * 1024, 10, '\xcc');
  const auto largeAt = reinterpret_cast<uint64_t>(large.data());
  output->load(nullptr, largeAt, large.size(), "C1 temporary CodeBuffer", {});
  // The record ends in a hole and is whole all the same.
  EXPECT_EQ(dump(), (std::vector<std::string>{"LOAD C1 temporary CodeBuffer@" + hex(large.data())}));
  output->load(nullptr, at(0), 64, "after", {});
  EXPECT_EQ(dump().back(), "LOAD after@" + hex(code[0]));

  const std::string bytes = readFile(output->dumpPath());
  EXPECT_NE(bytes.find(std::string(large.begin(), large.end())), std::string::npos);
  struct stat status {};
  ASSERT_EQ(::stat(output->dumpPath().c_str(), &status), 0);
  EXPECT_LT(status.st_blocks * 512, status.st_size - 32 * 1024) << "the zeros were written";
}

TEST_F(OutputTest, CloseWritesWhatIsHeldThenCodeClose) {
  output->holdWrites();
  output->load(nullptr, at(0), 64, "Interpreter", {});
  output->close();
  output->load(&methodA, at(1), 64, "void A.a()", {}); // after VM death: dropped
  EXPECT_EQ(dump(), (std::vector<std::string>{"LOAD Interpreter@" + hex(code[0]), "CLOSE"}));
}

TEST_F(OutputTest, UnloadOfReusedRangeLeavesTheNewCode) {
  output->load(&methodA, at(0), 64, "void A.a()", {});
  output->load(&methodB, at(0), 64, "void B.b()", {}); // A's range reused before A's unload
  output->unload(&methodA, at(0));
  output->unload(&methodB, at(1)); // nothing of B's there
  EXPECT_EQ(dump(), (std::vector<std::string>{"LOAD void A.a()@" + hex(code[0]),
                                              "LOAD void B.b()@" + hex(code[0])}));
  output->unload(&methodB, at(0));
  EXPECT_EQ(dump().back(), "UNLOAD " + hex(code[0]));
}

TEST_F(OutputTest, ReplayedStubIsNotWrittenTwice) {
  output->load(nullptr, at(0), 64, "flush_icache_stub", {});
  output->load(nullptr, at(0), 64, "flush_icache_stub", {}); // GenerateEvents replay
  output->load(nullptr, at(0), 32, "shorter stub", {});     // different code: written
  EXPECT_EQ(dump(), (std::vector<std::string>{"LOAD flush_icache_stub@" + hex(code[0]),
                                              "LOAD shorter stub@" + hex(code[0])}));
}

TEST(JitOutput, PerfMapFollowsTheDump) {
  test::TempDir dir;
  AgentOptions options;
  options.directory = dir.path();
  options.perfMap = true;
  std::string error;
  std::unique_ptr<JitOutput> output = JitOutput::open(options, error);
  ASSERT_TRUE(output) << error;
  EXPECT_EQ(output->mapPath(), "/tmp/perf-" + std::to_string(::getpid()) + ".map");
  static const char code[16] = {};
  output->holdWrites();
  output->load(nullptr, reinterpret_cast<uint64_t>(code), 16, "Interpreter", {});
  EXPECT_EQ(readFile(output->mapPath()), "");
  output->releaseWrites();
  EXPECT_EQ(readFile(output->mapPath()), hex(code) + " 10 Interpreter\n");
  ::unlink(output->mapPath().c_str());
}

TEST(JitOutput, UnwritableDirectoryIsNamed) {
  AgentOptions options;
  options.directory = "/nonexistent/jitsym";
  std::string error;
  EXPECT_FALSE(JitOutput::open(options, error));
  EXPECT_EQ(error, "cannot create /nonexistent/jitsym/jit-" + std::to_string(::getpid()) +
                       ".dump: No such file or directory");
}
