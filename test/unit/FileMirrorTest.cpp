// FileMirror: a local copy of a remote file, kept current by copying only what
// was appended; a rewritten original is copied again, as a new file.
#include "jitsym/files/FileMirror.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "../support/FileText.h"
#include "TempDir.h"

namespace jitsym {
namespace {

using test::readFile;
using test::TempDir;

// The "remote" file: a string, with a log of the reads asked of it.
struct FakeRemote : RemoteFile {
  std::string content;
  std::vector<std::pair<uint64_t, uint64_t>> reads; // offset, count
  bool failReads = false;

  llvm::Expected<uint64_t> size() override { return content.size(); }
  llvm::Expected<std::string> read(uint64_t offset, uint64_t count) override {
    reads.emplace_back(offset, count);
    if (failReads)
      return llvm::createStringError(std::errc::io_error, "connection lost");
    return content.substr(offset, count);
  }
  std::string name() const override { return "remote-linux:/tmp/perf-1.map"; }
};

struct Fixture {
  TempDir dir;
  FakeRemote *remote = new FakeRemote;
  FileMirror mirror{std::unique_ptr<RemoteFile>(remote), dir.file("copy")};
};

ino_t inodeOf(const std::string &path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_ino;
}

TEST(FileMirror, CopiesOnlyWhatWasAppended) {
  Fixture f;
  f.remote->content = std::string(100, 'a');
  llvm::Expected<MirrorUpdate> first = f.mirror.update();
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(first->from, 0u);
  EXPECT_EQ(first->to, 100u);
  EXPECT_FALSE(first->replaced);
  EXPECT_EQ(readFile(f.mirror.localPath()), f.remote->content);
  const ino_t inode = inodeOf(f.mirror.localPath());

  f.remote->content += "0123456789";
  f.remote->reads.clear();
  llvm::Expected<MirrorUpdate> second = f.mirror.update();
  ASSERT_TRUE(bool(second));
  EXPECT_EQ(second->from, 100u);
  EXPECT_EQ(second->to, 110u);
  // One read: the last 64 bytes copied before (to check them) and the 10 new.
  ASSERT_EQ(f.remote->reads.size(), 1u);
  EXPECT_EQ(f.remote->reads[0], std::make_pair(uint64_t(36), uint64_t(74)));
  EXPECT_EQ(readFile(f.mirror.localPath()), f.remote->content);
  EXPECT_EQ(inodeOf(f.mirror.localPath()), inode); // appended in place

  // Nothing new: nothing read.
  f.remote->reads.clear();
  ASSERT_TRUE(bool(f.mirror.update()));
  EXPECT_TRUE(f.remote->reads.empty());
  EXPECT_EQ(f.mirror.copied(), 110u);
  EXPECT_EQ(f.mirror.transferred(), 100u + 74u);
}

TEST(FileMirror, RewrittenOriginalIsCopiedAgainAsANewFile) {
  Fixture f;
  f.remote->content = "0x10 4 old\n";
  ASSERT_TRUE(bool(f.mirror.update()));
  const ino_t inode = inodeOf(f.mirror.localPath());

  // Rewritten and longer: the bytes before the end changed.
  f.remote->content = "0x20 4 new\n0x30 4 more\n";
  llvm::Expected<MirrorUpdate> update = f.mirror.update();
  ASSERT_TRUE(bool(update));
  EXPECT_TRUE(update->replaced);
  EXPECT_EQ(update->from, 0u);
  EXPECT_EQ(readFile(f.mirror.localPath()), f.remote->content);
  EXPECT_NE(inodeOf(f.mirror.localPath()), inode);

  // Shorter: rewritten too.
  f.remote->content = "0x40 4 x\n";
  update = f.mirror.update();
  ASSERT_TRUE(bool(update));
  EXPECT_TRUE(update->replaced);
  EXPECT_EQ(readFile(f.mirror.localPath()), f.remote->content);
}

TEST(FileMirror, LargeCopyIsReadInChunksWithProgress) {
  Fixture f;
  f.remote->content.assign(FileMirror::kChunk * 2 + 5, 'x');
  std::vector<std::pair<uint64_t, uint64_t>> steps;
  ASSERT_TRUE(bool(f.mirror.update([&](uint64_t done, uint64_t total) {
    steps.emplace_back(done, total);
  })));
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps.back(), std::make_pair(uint64_t(f.remote->content.size()),
                                         uint64_t(f.remote->content.size())));
  EXPECT_EQ(f.remote->reads.size(), 3u);
  EXPECT_EQ(readFile(f.mirror.localPath()).size(), f.remote->content.size());
}

TEST(FileMirror, FailedReadNamesTheFileAndRange) {
  Fixture f;
  f.remote->content = "0x10 4 a\n";
  ASSERT_TRUE(bool(f.mirror.update()));
  f.remote->content += "0x20 4 b\n";
  f.remote->failReads = true;
  llvm::Expected<MirrorUpdate> update = f.mirror.update();
  ASSERT_FALSE(bool(update));
  EXPECT_EQ(llvm::toString(update.takeError()),
            "remote-linux:/tmp/perf-1.map: cannot read bytes 0..18: connection lost");
  // The copy keeps what it had, and the next update gets the rest.
  EXPECT_EQ(readFile(f.mirror.localPath()), "0x10 4 a\n");
  f.remote->failReads = false;
  ASSERT_TRUE(bool(f.mirror.update()));
  EXPECT_EQ(readFile(f.mirror.localPath()), f.remote->content);
}

TEST(FileMirror, FileLeftAtTheCopysPathIsReplaced) {
  TempDir dir;
  auto *remote = new FakeRemote;
  remote->content = "0x10 4 new\n";
  {
    std::ofstream old(dir.file("copy"));
    old << "0x20 4 another file's copy\n";
  }
  FileMirror mirror(std::unique_ptr<RemoteFile>(remote), dir.file("copy"));
  ASSERT_TRUE(bool(mirror.update()));
  EXPECT_EQ(readFile(mirror.localPath()), remote->content);
}

TEST(FileMirror, EmptyOriginalMakesAnEmptyCopy) {
  Fixture f;
  ASSERT_TRUE(bool(f.mirror.update()));
  EXPECT_EQ(::access(f.mirror.localPath().c_str(), F_OK), 0);
  EXPECT_EQ(f.mirror.copied(), 0u);
}

} // namespace
} // namespace jitsym
