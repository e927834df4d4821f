// libjitsym-writer's C API, read back by the core's parsers: entries of many
// threads at once are all there and whole; the error codes of seed 001 (and
// ours) come back with errno; a forked child gets files of its own that start
// with the parent's entries; stale, planted and linked maps are handled.
#include "jitsym-writer.h"
#include "FileText.h"
#include "TempDir.h"

#include "jitsym/formats/JitdumpParser.h"
#include "jitsym/formats/PerfMapParser.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace jitsym;

namespace {

using test::readFile;

std::string mapPath(pid_t pid) { return "/tmp/perf-" + std::to_string(pid) + ".map"; }

// Every line of a perf map, parsed; a malformed one fails the test.
std::vector<std::pair<uint64_t, std::string>> mapEntries(const std::string &path) {
  std::vector<std::pair<uint64_t, std::string>> entries;
  std::istringstream lines(readFile(path));
  for (std::string line; std::getline(lines, line);) {
    PerfMapEntry entry;
    std::string error;
    EXPECT_TRUE(parsePerfMapLine(line, entry, error)) << error << ": " << line;
    entries.emplace_back(entry.address, std::string(entry.name));
  }
  return entries;
}

struct DumpRecords {
  uint32_t pid = 0;
  std::vector<std::string> loads; // names of CODE_LOADs, in order
  size_t lineTables = 0, unloads = 0, closes = 0;
};

DumpRecords dumpRecords(const std::string &path) {
  const std::string bytes = readFile(path);
  std::string error;
  DumpRecords seen;
  auto header = parseJitdumpHeader(bytes, error);
  EXPECT_TRUE(header) << path << ": " << error;
  if (!header)
    return seen;
  seen.pid = header->pid;
  for (size_t at = kJitdumpHeaderSize; at < bytes.size();) {
    JitdumpRecordParse parse = parseJitdumpRecord(std::string_view(bytes).substr(at), false);
    EXPECT_EQ(parse.kind, JitdumpRecordParse::Complete) << parse.error;
    if (parse.kind != JitdumpRecordParse::Complete)
      break;
    if (const auto *load = std::get_if<JitCodeLoad>(&parse.record.body))
      seen.loads.emplace_back(load->name);
    seen.lineTables += std::holds_alternative<JitDebugInfo>(parse.record.body);
    seen.unloads += std::holds_alternative<JitCodeUnload>(parse.record.body);
    seen.closes += std::holds_alternative<JitCodeClose>(parse.record.body);
    at += parse.record.size;
  }
  return seen;
}

// Code to announce: the writer copies its bytes into the dump.
char code[4096];
const char *codeAt(size_t offset) { return code + offset; }

struct WriterTest : ::testing::Test {
  test::TempDir dir;
  void SetUp() override { ::unlink(mapPath(::getpid()).c_str()); }
  void TearDown() override {
    jitsym_perf_map_fini();
    jitsym_jitdump_fini();
    ::unlink(mapPath(::getpid()).c_str());
  }
  std::string dumpPath(pid_t pid) const { return dir.file("jit-" + std::to_string(pid) + ".dump"); }
};

} // namespace

TEST_F(WriterTest, ManyThreadsLoseNoEntryAndInterleaveNoLine) {
  constexpr int kThreads = 8, kEach = 5000;
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t] {
      for (int i = 0; i < kEach; ++i) {
        const std::string name = "thread" + std::to_string(t) + "::function" + std::to_string(i);
        const char *at = codeAt((t * kEach + i) % 4000);
        EXPECT_EQ(jitsym_perf_map_write(at, 16, name.c_str()), JITSYM_OK);
        const jitsym_line lines[] = {{0, 10, "jit.c"}, {8, 11, nullptr}};
        EXPECT_EQ(jitsym_jitdump_write(at, 16, name.c_str(), lines, 2), JITSYM_OK);
      }
    });
  for (auto &thread : threads)
    thread.join();

  const auto entries = mapEntries(mapPath(::getpid()));
  EXPECT_EQ(entries.size(), size_t{kThreads * kEach});
  std::set<std::string> names;
  for (const auto &entry : entries)
    names.insert(entry.second);
  EXPECT_EQ(names.size(), size_t{kThreads * kEach}) << "an entry was lost or doubled";

  const DumpRecords dump = dumpRecords(dumpPath(::getpid()));
  EXPECT_EQ(dump.pid, static_cast<uint32_t>(::getpid()));
  EXPECT_EQ(dump.loads.size(), size_t{kThreads * kEach});
  EXPECT_EQ(dump.lineTables, size_t{kThreads * kEach});
  EXPECT_EQ(std::set<std::string>(dump.loads.begin(), dump.loads.end()), names);
}

TEST_F(WriterTest, BadArgumentsAreRefusedWithTheirCode) {
  auto expectRefused = [](int result, int code, int error) {
    EXPECT_EQ(result, code);
    EXPECT_EQ(errno, error);
  };
  expectRefused(jitsym_perf_map_write(code, 16, nullptr), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_perf_map_write(code, 0, "empty"), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_perf_map_write(nullptr, 16, "null"), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_perf_map_write(code, 16, "two\nlines"), JITSYM_ERR_ARG, EINVAL);
  const jitsym_line noFile[] = {{0, 1, nullptr}};
  const jitsym_line backwards[] = {{8, 1, "a.c"}, {4, 2, nullptr}};
  const jitsym_line pastEnd[] = {{16, 1, "a.c"}};
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  expectRefused(jitsym_jitdump_write(code, 16, "f", noFile, 1), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_jitdump_write(code, 16, "f", backwards, 2), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_jitdump_write(code, 16, "f", pastEnd, 1), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_jitdump_write(code, 16, "f", nullptr, 3), JITSYM_ERR_ARG, EINVAL);
  expectRefused(jitsym_jitdump_unload(code), JITSYM_ERR_UNKNOWN, ENOENT);
  EXPECT_TRUE(mapEntries(mapPath(::getpid())).empty());
  EXPECT_TRUE(dumpRecords(dumpPath(::getpid())).loads.empty());
}

TEST_F(WriterTest, OpenFailureAndClosedDumpHaveTheirCodes) {
  EXPECT_EQ(jitsym_jitdump_init("/nonexistent/jitsym"), JITSYM_ERR_OPEN);
  EXPECT_EQ(errno, ENOENT);
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  ASSERT_EQ(jitsym_jitdump_write(code, 16, "before", nullptr, 0), JITSYM_OK);
  ASSERT_EQ(jitsym_jitdump_unload(code), JITSYM_OK);
  jitsym_jitdump_fini();
  EXPECT_EQ(jitsym_jitdump_write(code, 16, "after", nullptr, 0), JITSYM_ERR_CLOSED);
  EXPECT_EQ(errno, EBADF);
  const DumpRecords dump = dumpRecords(dumpPath(::getpid()));
  EXPECT_EQ(dump.loads, std::vector<std::string>{"before"});
  EXPECT_EQ(dump.unloads, 1u);
  EXPECT_EQ(dump.closes, 1u);
}

TEST_F(WriterTest, PerfMapOpensOnFirstWriteAndReopensAfterFini) {
  EXPECT_EQ(jitsym_perf_map_write(codeAt(0), 0x10, "py::first:/run/t.py"), JITSYM_OK);
  jitsym_perf_map_fini();
  EXPECT_EQ(jitsym_perf_map_write(codeAt(16), 0xb, "py::second:/run/t.py"), JITSYM_OK);
  const auto entries = mapEntries(mapPath(::getpid()));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].second, "py::first:/run/t.py");
  EXPECT_EQ(entries[1].second, "py::second:/run/t.py");
}

TEST_F(WriterTest, AForkedChildWritesItsOwnFilesStartingWithTheParents) {
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  ASSERT_EQ(jitsym_perf_map_write(codeAt(0), 16, "parent_before"), JITSYM_OK);
  ASSERT_EQ(jitsym_jitdump_write(codeAt(0), 16, "parent_before", nullptr, 0), JITSYM_OK);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const bool wrote = jitsym_perf_map_write(codeAt(32), 16, "child") == JITSYM_OK &&
                       jitsym_jitdump_write(codeAt(32), 16, "child", nullptr, 0) == JITSYM_OK;
    ::_exit(wrote ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_EQ(jitsym_perf_map_write(codeAt(64), 16, "parent_after"), JITSYM_OK);
  ASSERT_EQ(jitsym_jitdump_write(codeAt(64), 16, "parent_after", nullptr, 0), JITSYM_OK);

  auto names = [](const std::vector<std::pair<uint64_t, std::string>> &entries) {
    std::vector<std::string> out;
    for (const auto &entry : entries)
      out.push_back(entry.second);
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(mapEntries(mapPath(::getpid()))), (Names{"parent_before", "parent_after"}));
  EXPECT_EQ(names(mapEntries(mapPath(child))), (Names{"parent_before", "child"}));
  EXPECT_EQ(dumpRecords(dumpPath(::getpid())).loads, (Names{"parent_before", "parent_after"}));
  const DumpRecords childDump = dumpRecords(dumpPath(child));
  EXPECT_EQ(childDump.pid, static_cast<uint32_t>(child));
  EXPECT_EQ(childDump.loads, (Names{"parent_before", "child"}));
  ::unlink(mapPath(child).c_str());
}

TEST_F(WriterTest, MapOfAnEarlierProcessIsEmptiedOneOfThisProcessIsKept) {
  const std::string path = mapPath(::getpid());
  std::ofstream(path) << "dead 10 stale_from_an_earlier_process\n";
  const timeval longAgo[2] = {{946684800, 0}, {946684800, 0}}; // 2000-01-01
  ASSERT_EQ(::utimes(path.c_str(), longAgo), 0);
  ASSERT_EQ(jitsym_perf_map_write(codeAt(0), 16, "fresh"), JITSYM_OK);
  EXPECT_EQ(mapEntries(path), (std::vector<std::pair<uint64_t, std::string>>{
                                  {reinterpret_cast<uint64_t>(codeAt(0)), "fresh"}}));
  jitsym_perf_map_fini();

  // Written by this process's runtime (now): appended to.
  std::ofstream(path) << "beef 10 runtime_own_entry\n";
  ASSERT_EQ(jitsym_perf_map_write(codeAt(0), 16, "ours"), JITSYM_OK);
  EXPECT_EQ(mapEntries(path).size(), 2u);
}

TEST_F(WriterTest, PlantedLinkOrOtherUsersMapIsRefused) {
  const std::string path = mapPath(::getpid());
  ASSERT_EQ(::symlink(dir.file("elsewhere").c_str(), path.c_str()), 0);
  EXPECT_EQ(jitsym_perf_map_init(), JITSYM_ERR_OPEN);
  EXPECT_EQ(errno, ELOOP);
  EXPECT_NE(::access(dir.file("elsewhere").c_str(), F_OK), 0) << "written through the link";
  ::unlink(path.c_str());

  if (::geteuid() != 0)
    GTEST_SKIP() << "giving a file to another user needs root";
  std::ofstream(path) << "";
  ASSERT_EQ(::chown(path.c_str(), 65534, 65534), 0);
  EXPECT_EQ(jitsym_perf_map_init(), JITSYM_ERR_OPEN);
  EXPECT_EQ(errno, EACCES);

  // Another user's dump by our name: refused, and not emptied on the way.
  const std::string dump = dumpPath(::getpid());
  std::ofstream(dump) << "theirs";
  ASSERT_EQ(::chown(dump.c_str(), 65534, 65534), 0);
  EXPECT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_ERR_OPEN);
  EXPECT_EQ(errno, EACCES);
  EXPECT_EQ(readFile(dump), "theirs");
}

// A runtime may report code past the memory it has made readable (Temurin 25
// under LLDB reported a stub blob running past its code heap's committed end,
// and the writer's scan of its bytes killed the JVM): the readable start is
// written, code it cannot read at all is refused, and nothing crashes.
TEST_F(WriterTest, CodePastReadableMemoryIsCutNotRead) {
  const long page = ::sysconf(_SC_PAGESIZE);
  void *mapping = ::mmap(nullptr, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  char *memory = static_cast<char *>(mapping);
  std::memset(memory, 0x90, 2 * page);
  ASSERT_EQ(::mprotect(memory + 2 * page, 2 * page, PROT_NONE), 0); // reserved, not committed
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  EXPECT_EQ(jitsym_jitdump_write(memory + page / 2, 3 * page, "stubs", nullptr, 0), JITSYM_OK);
  errno = 0;
  EXPECT_EQ(jitsym_jitdump_write(memory + 2 * page, page, "uncommitted", nullptr, 0),
            JITSYM_ERR_ARG);
  EXPECT_EQ(errno, EFAULT);
  EXPECT_EQ(jitsym_jitdump_write(memory + 16, 64, "small", nullptr, 0), JITSYM_OK);
  jitsym_jitdump_fini();
  const DumpRecords records = dumpRecords(dumpPath(::getpid()));
  EXPECT_EQ(records.loads, (std::vector<std::string>{"stubs", "small"}));
  // The first load holds its readable part: 1.5 pages.
  const std::string bytes = readFile(dumpPath(::getpid()));
  JitdumpRecordParse first =
      parseJitdumpRecord(std::string_view(bytes).substr(kJitdumpHeaderSize), false);
  ASSERT_EQ(first.kind, JitdumpRecordParse::Complete);
  EXPECT_EQ(std::get<JitCodeLoad>(first.record.body).codeSize, uint64_t(page + page / 2));
  ::munmap(mapping, 4 * page);
}

// The range of a stub HotSpot was still generating ran from its code heap to
// the top of the address space: past the heap's committed end (PROT_NONE),
// then through readable memory again. Reading stops at the first page it
// cannot read, whatever lies beyond (a search by halves found readable pages
// past the hole and read into it), also past the 256 pages one call asks.
TEST_F(WriterTest, CodeIsCutAtItsFirstUnreadablePageNotItsLast) {
  const long page = ::sysconf(_SC_PAGESIZE);
  const long pages = 600;
  void *mapping = ::mmap(nullptr, pages * page, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapping, MAP_FAILED);
  char *memory = static_cast<char *>(mapping);
  ASSERT_EQ(::mprotect(memory + 300 * page, page, PROT_NONE), 0); // the hole, in the second call
  ASSERT_EQ(jitsym_jitdump_init(dir.path().c_str()), JITSYM_OK);
  EXPECT_EQ(jitsym_jitdump_write(memory + 16, pages * page - 32, "through a hole", nullptr, 0),
            JITSYM_OK);
  EXPECT_EQ(jitsym_jitdump_write(memory + 400 * page, 100 * page, "after it", nullptr, 0),
            JITSYM_OK);
  jitsym_jitdump_fini();
  const std::string bytes = readFile(dumpPath(::getpid()));
  std::string_view rest = std::string_view(bytes).substr(kJitdumpHeaderSize);
  std::vector<uint64_t> sizes;
  while (!rest.empty()) {
    JitdumpRecordParse record = parseJitdumpRecord(rest, false);
    if (record.kind != JitdumpRecordParse::Complete)
      break;
    if (const auto *load = std::get_if<JitCodeLoad>(&record.record.body))
      sizes.push_back(load->codeSize);
    rest.remove_prefix(record.record.size);
  }
  EXPECT_EQ(sizes, (std::vector<uint64_t>{uint64_t(300 * page - 16), uint64_t(100 * page)}));
  ::munmap(mapping, pages * page);
}
