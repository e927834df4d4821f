// A local copy of a file this process cannot open itself (a perf map or jitdump
// on a remote target, reached through LLDB's platform connection), kept current
// by copying only what its writer appended since the last update. The readers
// then follow the copy like any local file (PerfMapReader, JitdumpReader).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "llvm/Support/Error.h"

namespace jitsym {

// How the copy reaches the original.
class RemoteFile {
public:
  virtual ~RemoteFile() = default;
  virtual llvm::Expected<uint64_t> size() = 0;
  // Exactly `count` bytes at `offset`, or an error.
  virtual llvm::Expected<std::string> read(uint64_t offset, uint64_t count) = 0;
  // The file as the user knows it ("remote-linux:/tmp/perf-42.map").
  virtual std::string name() const = 0;
  // How its bytes come (for status output); empty when there is nothing to say.
  virtual std::string transport() const { return {}; }
};

struct MirrorUpdate {
  uint64_t from = 0, to = 0; // the bytes of the original copied by this update
  bool replaced = false;     // the original was rewritten: copied again from 0
};

class FileMirror {
public:
  // The copy is written at `localPath`, in a directory only this user enters.
  FileMirror(std::unique_ptr<RemoteFile> original, std::string localPath);

  // Called after each chunk copied: (bytes copied so far, bytes to copy).
  using Progress = std::function<void(uint64_t done, uint64_t total)>;

  // Copies what was appended since the last update. A file that shrank, or
  // whose last bytes copied before changed, was rewritten: the copy is made
  // again from the start, as a new file (so its readers start over too).
  llvm::Expected<MirrorUpdate> update(const Progress &progress = {});

  const std::string &localPath() const { return localPath_; }
  std::string name() const { return original_->name(); }
  std::string transport() const { return original_->transport(); }
  uint64_t copied() const { return copied_; }       // the copy's size
  uint64_t transferred() const { return transferred_; } // all bytes ever read
  const MirrorUpdate &last() const { return last_; }

  // Bytes read in one request: a unit of progress, and what one read holds.
  static constexpr uint64_t kChunk = 4 << 20;
  // Bytes read again before the new ones, to check the original is the same.
  static constexpr uint64_t kOverlap = 64;

private:
  llvm::Error copyRange(int fd, uint64_t from, uint64_t to, uint64_t overlap,
                        bool &overlapMatched, const Progress &progress);
  llvm::Error recopy(uint64_t size, const Progress &progress);

  std::unique_ptr<RemoteFile> original_;
  std::string localPath_;
  bool copyMade_ = false; // the file at localPath_ is this mirror's copy
  uint64_t copied_ = 0;
  uint64_t transferred_ = 0;
  std::string tail_; // the last kOverlap bytes (or fewer) of the copy
  MirrorUpdate last_;
};

} // namespace jitsym
