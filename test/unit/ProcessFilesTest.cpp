// /proc parsers and perf map discovery over a fake procRoot tree.
#include "JitdumpBytes.h"
#include "TempDir.h"
#include "jitsym/files/ProcessFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace jitsym;
using jitsym::test::TempDir;

namespace {


void makeDirs(const std::string &path) {
  std::string partial;
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos == path.size() || path[pos] == '/') {
      partial = path.substr(0, pos);
      ::mkdir(partial.c_str(), 0755);
    }
  }
}

void writeFile(const std::string &path, const std::string &text) {
  makeDirs(path.substr(0, path.rfind('/')));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// A /proc/PID/stat line with the given comm and start time in field 22.
std::string statLine(uint64_t pid, const std::string &comm, uint64_t startTime) {
  std::string line = std::to_string(pid) + " (" + comm + ") S 1 4242 4242 0 -1 4194560 "
                     "1234 0 0 0 10 5 0 0 20 0 7 0 " + std::to_string(startTime) +
                     " 123456789 2048 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0\n";
  return line;
}

const char *const kStatus = "Name:\tnode\n"
                            "Umask:\t0022\n"
                            "State:\tS (sleeping)\n"
                            "Tgid:\t4242\n"
                            "NStgid:\t4242\t17\n"
                            "Pid:\t4242\n"
                            "PPid:\t1\n"
                            "Uid:\t1000\t1001\t1002\t1003\n"
                            "Gid:\t1000\t1000\t1000\t1000\n";

} // namespace

TEST(ProcessFiles, ParseStartTime) {
  EXPECT_EQ(parseStartTime(statLine(4242, "node", 987654)), 987654u);
}

TEST(ProcessFiles, ParseStartTimeWithHostileComm) {
  // comm may contain spaces and parentheses, even ") S 1 2 3".
  EXPECT_EQ(parseStartTime(statLine(4242, "my (weird) prog", 55)), 55u);
  EXPECT_EQ(parseStartTime(statLine(4242, "a) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21", 77)),
            77u);
  EXPECT_EQ(parseStartTime(statLine(4242, " ) ", 78)), 78u);
}

TEST(ProcessFiles, ParseStartTimeMalformed) {
  EXPECT_EQ(parseStartTime(""), std::nullopt);
  EXPECT_EQ(parseStartTime("4242 node S 1 2 3"), std::nullopt); // no parentheses
  EXPECT_EQ(parseStartTime("4242 (node) S 1 2 3"), std::nullopt); // too short
  std::string bad = statLine(1, "x", 31337);
  bad.replace(bad.find(" 31337 "), 7, " zz ");
  EXPECT_EQ(parseStartTime(bad), std::nullopt);
}

TEST(ProcessFiles, ParseNamespacedPid) {
  EXPECT_EQ(parseNamespacedPid(kStatus), 17u);
  EXPECT_EQ(parseNamespacedPid("NStgid:\t4242\t17"), 17u);
  EXPECT_EQ(parseNamespacedPid("NStgid:\t4242\n"), 4242u);
  EXPECT_EQ(parseNamespacedPid("NStgid:\t4242\t100\t7\n"), 7u);
  EXPECT_EQ(parseNamespacedPid("Tgid:\t4242\n"), std::nullopt);
  EXPECT_EQ(parseNamespacedPid("NStgid:\n"), std::nullopt);
  EXPECT_EQ(parseNamespacedPid("XNStgid:\t5\n"), std::nullopt);
  // "NStgid" must be the whole key, not a prefix of another one.
  EXPECT_EQ(parseNamespacedPid("NStgidX:\t5\nNStgid:\t6\n"), 6u);
}

TEST(ProcessFiles, ParseRealUid) {
  EXPECT_EQ(parseRealUid(kStatus), uid_t(1000));
  EXPECT_EQ(parseRealUid("Uid:\t0\t0\t0\t0"), uid_t(0));
  EXPECT_EQ(parseRealUid("Name:\tx\n"), std::nullopt);
  EXPECT_EQ(parseRealUid("Uid:\tabc\t1\n"), std::nullopt);
  EXPECT_EQ(parseRealUid("Uid:\n"), std::nullopt);
}

// Found by the procfiles fuzz target: a number was read from the digits that
// start a field, whatever followed them.
TEST(ProcessFiles, NumbersAreWholeFields) {
  EXPECT_EQ(parseRealUid("Uid:\t1000x\t0\n"), std::nullopt);
  EXPECT_EQ(parseNamespacedPid("NStgid:\t4242\t17abc\n"), std::nullopt);
  EXPECT_EQ(parseBootTime("btime 1700000000s\n"), std::nullopt);
  std::string bad = statLine(1, "x", 31337);
  bad.replace(bad.find(" 31337 "), 7, " 31337z ");
  EXPECT_EQ(parseStartTime(bad), std::nullopt);
  // A stat text whose fields after ')' run into other lines (as /proc/PID/status).
  EXPECT_EQ(parseStartTime("1 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 "
                           "7024\nRssFile: 0\n"),
            std::nullopt);
  EXPECT_EQ(parseFdInfo("pos:\t12x\nflags:\t02001\n"), std::nullopt);
}

TEST(ProcessFiles, ReadersOverFakeProc) {
  TempDir proc;
  writeFile(proc.path() + "/4242/stat", statLine(4242, "node", 31337));
  writeFile(proc.path() + "/4242/status", kStatus);
  auto identity = readProcessIdentity(4242, proc.path());
  ASSERT_TRUE(identity.has_value());
  EXPECT_EQ(*identity, (ProcessIdentity{4242, 31337}));
  EXPECT_NE(*identity, (ProcessIdentity{4242, 31338}));
  EXPECT_EQ(readProcessUid(4242, proc.path()), uid_t(1000));
  EXPECT_EQ(readProcessIdentity(999, proc.path()), std::nullopt);
  EXPECT_EQ(readProcessUid(999, proc.path()), std::nullopt);
  EXPECT_EQ(readFile(proc.path() + "/nope"), std::nullopt);
  EXPECT_EQ(readFile(proc.path() + "/4242/status"), std::string(kStatus));
}

TEST(ProcessFiles, OwnIdentityFromRealProc) {
  if (::access("/proc/self/stat", R_OK) != 0)
    GTEST_SKIP() << "no /proc";
  auto identity = readProcessIdentity(::getpid());
  ASSERT_TRUE(identity.has_value());
  EXPECT_EQ(identity->pid, uint64_t(::getpid()));
  EXPECT_GT(identity->startTime, 0u);
  EXPECT_EQ(readProcessUid(::getpid()), ::getuid());
}

TEST(ProcessFiles, CandidatesUseNamespacedPidInsideRoot) {
  TempDir proc;
  const std::string root = proc.path();
  writeFile(root + "/4242/status", kStatus);
  std::vector<std::string> candidates = perfMapCandidates(4242, root);
  ASSERT_GE(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], root + "/4242/root/tmp/perf-17.map");
  EXPECT_EQ(candidates[1], "/tmp/perf-4242.map");
  EXPECT_EQ(candidates[2], root + "/4242/root/data/local/tmp/perf-17.map");
}

TEST(ProcessFiles, CandidatesWithoutStatusUseHostPid) {
  TempDir proc;
  std::vector<std::string> candidates = perfMapCandidates(4243, proc.path());
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], proc.path() + "/4243/root/tmp/perf-4243.map");
}

TEST(ProcessFiles, AndroidPackageCandidate) {
  TempDir proc;
  const std::string root = proc.path();
  writeFile(root + "/500/status", "NStgid:\t500\n");
  writeFile(root + "/500/cmdline", std::string("com.example.app:service\0--flag\0", 31));
  std::vector<std::string> candidates = perfMapCandidates(500, root);
  ASSERT_EQ(candidates.size(), 4u);
  // Seed 000's order: the app's data directory, then /data/local/tmp.
  EXPECT_EQ(candidates[2], root + "/500/root/data/data/com.example.app/perf-500.map");
  EXPECT_EQ(candidates[3], root + "/500/root/data/local/tmp/perf-500.map");

  // A command line that is a path is not a package name.
  writeFile(root + "/501/cmdline", std::string("/usr/bin/node\0app.js\0", 21));
  EXPECT_EQ(perfMapCandidates(501, root).size(), 3u);
}

TEST(ProcessFiles, RemoteCandidatesInSeedOrder) {
  EXPECT_EQ(remotePerfMapCandidates(77, "com.example.app:remote", /*android=*/true),
            (std::vector<std::string>{"/data/data/com.example.app/perf-77.map",
                                      "/data/local/tmp/perf-77.map", "/tmp/perf-77.map"}));
  // A standalone program: its path is not a package.
  EXPECT_EQ(remotePerfMapCandidates(78, "/data/local/tmp/tool", true),
            (std::vector<std::string>{"/data/local/tmp/perf-78.map", "/tmp/perf-78.map"}));
  EXPECT_EQ(remotePerfMapCandidates(79, "/usr/bin/node", /*android=*/false),
            (std::vector<std::string>{"/tmp/perf-79.map", "/data/local/tmp/perf-79.map"}));
  EXPECT_EQ(androidPackage(std::string("com.a.b\0x", 9)), "com.a.b");
  EXPECT_EQ(androidPackage(""), std::nullopt);
}

// PIDs above pid_max so that a real /tmp/perf-PID.map cannot interfere.
TEST(ProcessFiles, FindPerfMapInContainerRoot) {
  TempDir proc;
  const std::string root = proc.path();
  writeFile(root + "/98764242/status", kStatus);
  EXPECT_EQ(findPerfMap(98764242, root), std::nullopt);
  // The host-PID name inside the root is not what the runtime writes.
  writeFile(root + "/98764242/root/tmp/perf-98764242.map", "1000 10 wrong\n");
  EXPECT_EQ(findPerfMap(98764242, root), std::nullopt);
  writeFile(root + "/98764242/root/tmp/perf-17.map", "1000 10 a\n");
  EXPECT_EQ(findPerfMap(98764242, root), root + "/98764242/root/tmp/perf-17.map");
}

TEST(ProcessFiles, FindPerfMapAndroidLocation) {
  TempDir proc;
  const std::string root = proc.path();
  writeFile(root + "/98760777/status", "NStgid:\t777\t3\n");
  writeFile(root + "/98760777/root/data/local/tmp/perf-3.map", "1000 10 a\n");
  EXPECT_EQ(findPerfMap(98760777, root), root + "/98760777/root/data/local/tmp/perf-3.map");
}

TEST(ProcessFiles, BootTimeFromProcStat) {
  EXPECT_EQ(parseBootTime("cpu  1 2 3\nintr 5\nbtime 1763800000\nprocesses 9\n"), 1763800000u);
  EXPECT_EQ(parseBootTime("cpu  1 2 3\n"), std::nullopt);
}

// A map written before the process started was left by an earlier process
// with the same PID (PIDs start over at each boot): it is not this one's.
TEST(ProcessFiles, MapLastWrittenBeforeTheProcessStartedIsStale) {
  TempDir proc;
  const std::string root = proc.path();
  const long ticks = ::sysconf(_SC_CLK_TCK);
  // Booted 1000 s ago; the process started 500 s after boot.
  const uint64_t boot = uint64_t(::time(nullptr)) - 1000;
  writeFile(root + "/stat", "cpu  1 2 3\nbtime " + std::to_string(boot) + "\n");
  writeFile(root + "/98760888/stat",
            "98760888 (node) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " +
                std::to_string(500 * ticks) + " 0 0\n");
  writeFile(root + "/98760888/status", "NStgid:\t98760888\n");
  const std::string map = root + "/98760888/root/tmp/perf-98760888.map";
  writeFile(map, "1000 10 a\n");
  ASSERT_TRUE(readProcessStartSeconds(98760888, root));
  EXPECT_NEAR(*readProcessStartSeconds(98760888, root), double(boot + 500), 0.01);

  struct timespec times[2] = {{time_t(boot + 100), 0}, {time_t(boot + 100), 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, map.c_str(), times, 0), 0);
  EXPECT_EQ(findPerfMap(98760888, root), std::nullopt); // written at boot + 100

  times[0].tv_sec = times[1].tv_sec = time_t(boot + 501);
  ASSERT_EQ(::utimensat(AT_FDCWD, map.c_str(), times, 0), 0);
  EXPECT_EQ(findPerfMap(98760888, root), map); // written by the process
}

TEST(ProcessFiles, FdInfoGivesOffsetAndAppendFlag) {
  auto plain = parseFdInfo("pos:\t130\nflags:\t0100001\nmnt_id:\t21\nino:\t4242\n");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->offset, 130u);
  EXPECT_FALSE(plain->appends);
  auto appending = parseFdInfo("pos:\t0\nflags:\t02102001\n");
  ASSERT_TRUE(appending.has_value());
  EXPECT_TRUE(appending->appends);
  EXPECT_FALSE(parseFdInfo("pos:\t12\n").has_value());            // no flags
  EXPECT_FALSE(parseFdInfo("pos:\tx\nflags:\t01\n").has_value());  // bad offset
  EXPECT_FALSE(parseFdInfo("pos:\t1\nflags:\t019\n").has_value()); // not octal
}

TEST(ProcessFiles, DescriptorOfThisProcessIsItsFile) {
  TempDir dir;
  std::string path = dir.file("perf-9.map");
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_APPEND, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "1 1 a\n", 6), 6);
  EXPECT_TRUE(descriptorIsFile(::getpid(), fd, path));
  EXPECT_FALSE(descriptorIsFile(::getpid(), fd, dir.file("other")));
  EXPECT_FALSE(descriptorIsFile(::getpid(), 1 << 20, path));
  auto position = readDescriptorPosition(::getpid(), fd);
  ASSERT_TRUE(position.has_value());
  EXPECT_EQ(position->offset, 6u);
  EXPECT_TRUE(position->appends);
  ::close(fd);
}

TEST(ProcessFiles, JitdumpIsTheExecutableMappingNamedAfterThePid) {
  auto mapping = [](std::string path, bool execute) {
    Mapping m;
    m.start = 0x1000;
    m.end = 0x2000;
    m.read = true;
    m.execute = execute;
    m.inode = 7;
    m.path = std::move(path);
    return m;
  };
  const std::vector<Mapping> map = {
      mapping("/usr/bin/node", true),
      mapping("/tmp/jit-12.dump", false),     // not executable: not announced
      mapping("/tmp/jit-99.dump", true),      // another process's name
      mapping("/tmp/jit-.dump", true),        // no PID
      mapping("/tmp/jit-4242x.dump", true),   // not a PID (found by fuzzing)
      mapping("/work/jit-4242.dump", true),
  };
  EXPECT_EQ(jitdumpInMemoryMap(map, 4242, 4242), "/work/jit-4242.dump");
  EXPECT_EQ(jitdumpInMemoryMap(map, 777, 4242), "/work/jit-4242.dump") << "namespaced PID";
  EXPECT_EQ(jitdumpInMemoryMap(map, 12, 12), std::nullopt);
  EXPECT_EQ(jitdumpInMemoryMap({}, 4242, 4242), std::nullopt);
}

TEST(ProcessFiles, JitdumpNamesFollowPerfsRule) {
  EXPECT_TRUE(isJitdumpName("/srv/jit-4242.dump", 4242, 4242));
  EXPECT_TRUE(isJitdumpName("jit-7.dump", 4242, 7)) << "namespaced PID, no folder";
  EXPECT_FALSE(isJitdumpName("/srv/jit-4242.dump", 12, 13));
  EXPECT_FALSE(isJitdumpName("/srv/jit-4242x.dump", 4242, 4242));
  // Another file than process 30754's (found by fuzzing): perf spells PIDs plainly.
  EXPECT_FALSE(isJitdumpName("/srv/jit-030754.dump", 30754, 0));
  EXPECT_FALSE(isJitdumpName("/srv/jit-+12.dump", 12, 12));
  EXPECT_FALSE(isJitdumpName("/srv/jit-4242.dump/", 4242, 4242));
  EXPECT_FALSE(isJitdumpName("/srv/xjit-4242.dump", 4242, 4242));
  EXPECT_FALSE(isJitdumpName("/srv/jit-.dump", 0, 0));
  EXPECT_FALSE(isJitdumpName("", 0, 0));
}

// JavaScriptCore (Bun 1.4.5, BUN_JSC_useJITDump=1) names its dump after its
// writer thread and the process: /tmp/jit-23154-23152-lMK9YH (mkostemp), or
// DIR/jit-24131-24130.dump with BUN_JSC_jitDumpDirectory.
TEST(ProcessFiles, JitdumpNamesOfJavaScriptCore) {
  EXPECT_TRUE(isJitdumpName("/tmp/jit-23154-23152-lMK9YH", 23152, 23152));
  EXPECT_TRUE(isJitdumpName("/work/rt/bundump/jit-24131-24130.dump", 24130, 24130));
  EXPECT_TRUE(isJitdumpName("/tmp/jit-23154-7-lMK9YH", 23152, 7)) << "namespaced PID";
  EXPECT_FALSE(isJitdumpName("/tmp/jit-23154-23152-lMK9YH", 23154, 23154)) << "the thread's";
  EXPECT_FALSE(isJitdumpName("/tmp/jit-23154-23152-lMK9Y", 23152, 23152)) << "not mkostemp's";
  EXPECT_FALSE(isJitdumpName("/tmp/jit-x-23152.dump", 23152, 23152));
  EXPECT_FALSE(isJitdumpName("/tmp/jit-23152", 23152, 23152));
}

// A jitdump of any other name is told by its header: the magic and the PID.
TEST(ProcessFiles, JitdumpOfAnotherNameIsToldByItsContent) {
  const std::vector<Mapping> map = parseMemoryMap(
      "7f0000000000-7f0000001000 r-xp 00000000 fe:00 11 /srv/profiles/run.bin\n"
      "7f0000100000-7f0000200000 r-xp 00010000 fe:00 12 /usr/bin/node\n"
      "7f0000300000-7f0000301000 r-xp 00000000 fe:00 13 /usr/lib/libtiny.so.1\n"
      "7f0000400000-7f0000401000 rw-p 00000000 fe:00 14 /srv/data.bin\n",
      "maps");
  EXPECT_EQ(jitdumpCandidatesInMemoryMap(map), std::vector<std::string>{"/srv/profiles/run.bin"});
  std::string header = test::jitdumpHeader(); // process 4242's
  EXPECT_TRUE(isJitdumpOf(header, 4242, 4242));
  EXPECT_TRUE(isJitdumpOf(header, 1, 4242)) << "namespaced PID";
  EXPECT_FALSE(isJitdumpOf(header, 1, 1));
  EXPECT_FALSE(isJitdumpOf(header.substr(0, 20), 4242, 4242));
  EXPECT_FALSE(isJitdumpOf("\x7f" "ELF and more bytes than a header has, surely", 4242, 4242));

  // This process's own dump of that name is found; another process's is not.
  TempDir dir;
  const std::string path = dir.file("run.bin");
  std::string own = test::jitdumpHeader();
  const uint32_t pid = static_cast<uint32_t>(::getpid());
  std::memcpy(own.data() + offsetof(jitheader, pid), &pid, sizeof pid);
  std::ofstream(path, std::ios::binary) << own;
  const std::vector<Mapping> ours = parseMemoryMap(
      "7f0000000000-7f0000001000 r-xp 00000000 fe:00 11 " + path + "\n", "maps");
  const std::optional<std::string> found = findJitdump(::getpid(), ours);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->substr(found->size() - path.size()), path);
  EXPECT_EQ(findJitdump(::getpid() + 1, ours), std::nullopt);
}

TEST(ProcessFiles, DescriptorOnAJitdumpIsToldByItsName) {
  TempDir dir;
  const std::string own = dir.file("jit-" + std::to_string(::getpid()) + ".dump");
  const std::string other = dir.file("jit-1.dump");
  int a = ::open(own.c_str(), O_CREAT | O_WRONLY, 0600);
  int b = ::open(other.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_TRUE(descriptorIsJitdump(::getpid(), a));
  EXPECT_FALSE(descriptorIsJitdump(::getpid(), b));
  EXPECT_FALSE(descriptorIsJitdump(::getpid(), -1));
  ::close(a);
  ::close(b);
}

TEST(ProcessFiles, DescriptorsOfAFileAreFound) {
  TempDir dir;
  std::string path = dir.file("jit-1.dump");
  int a = ::open(path.c_str(), O_CREAT | O_WRONLY, 0600);
  int b = ::open(path.c_str(), O_RDONLY);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  std::vector<int> found = descriptorsOfFile(::getpid(), path);
  EXPECT_EQ(found.size(), 2u);
  EXPECT_NE(std::find(found.begin(), found.end(), a), found.end());
  EXPECT_NE(std::find(found.begin(), found.end(), b), found.end());
  ::close(a);
  ::close(b);
  EXPECT_TRUE(descriptorsOfFile(::getpid(), path).empty());
}
