// process.json written and read back as text.
#include "jitsym/formats/SnapshotDescription.h"

#include <gtest/gtest.h>

using namespace jitsym;

namespace {

Snapshot nodeSnapshot() {
  Snapshot s;
  s.directory = "/snap";
  s.pid = 1617;
  s.namespacedPid = 17;
  s.startTime = 3370154;
  s.uid = 1000;
  s.executable = "/usr/bin/node";
  s.commandLine = "node --perf-prof app.js";
  s.bootId = "9e86cc16-250d-4111-80ef-0b41499ef6ee";
  s.takenAt = 1795368311;
  s.maps = "/snap/maps";
  s.perfMap = "/snap/perf-1617.map";
  s.perfMapSource = "/proc/1617/root/tmp/perf-1617.map";
  s.jitdump = "/snap/jit-1617.dump";
  s.jitdumpSource = "/proc/1617/root/tmp/jit-1617.dump";
  s.jitdumpDescriptors = {{20, 1937408}};
  return s;
}

} // namespace

TEST(SnapshotDescription, ReadsBackWhatItWrites) {
  const Snapshot s = nodeSnapshot();
  llvm::Expected<Snapshot> read = parseSnapshotDescription(describeSnapshot(s), "/snap", "p");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->pid, s.pid);
  EXPECT_EQ(read->uid, s.uid);
  EXPECT_EQ(read->commandLine, s.commandLine);
  EXPECT_EQ(read->maps, s.maps);
  EXPECT_EQ(read->jitdump, s.jitdump);
  ASSERT_EQ(read->jitdumpDescriptors.size(), 1u);
  EXPECT_EQ(read->jitdumpDescriptors[0].offset, 1937408u);
}

// Found by the snapshot fuzz target: a process whose arguments are not UTF-8
// (a Latin-1 file name) made `jitsym snapshot` die of nlohmann's exception.
TEST(SnapshotDescription, WritesArgumentsThatAreNotUtf8) {
  Snapshot s = nodeSnapshot();
  s.commandLine = "node caf\xe9.js";
  s.executable = "/opt/\xff\xfe/node";
  std::string text;
  ASSERT_NO_THROW(text = describeSnapshot(s));
  llvm::Expected<Snapshot> read = parseSnapshotDescription(text, "/snap", "p");
  ASSERT_TRUE(bool(read)) << llvm::toString(read.takeError());
  EXPECT_EQ(read->commandLine, "node caf\xef\xbf\xbd.js"); // U+FFFD
  EXPECT_EQ(read->executable, "/opt/\xef\xbf\xbd\xef\xbf\xbd/node");
  EXPECT_EQ(read->pid, s.pid);
}

TEST(SnapshotDescription, SavedFilesStayInTheDirectory) {
  for (const char *name : {"../maps", "..", ".", "/etc/passwd", "a/b"}) {
    const std::string text = std::string(R"({"pid": 1, "maps": ")") + name + "\"}";
    llvm::Expected<Snapshot> read = parseSnapshotDescription(text, "/snap", "/snap/process.json");
    ASSERT_FALSE(bool(read)) << name;
    EXPECT_NE(llvm::toString(read.takeError()).find("must name a file in the snapshot"),
              std::string::npos);
  }
  llvm::Expected<Snapshot> notObject = parseSnapshotDescription("[1]", "/snap", "p");
  ASSERT_FALSE(bool(notObject));
  llvm::consumeError(notObject.takeError());
}
