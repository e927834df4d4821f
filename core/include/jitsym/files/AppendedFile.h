// A file that its writer only ever appends to (a perf map, a jitdump), read a
// little more at each sync. Opening checks it (no symbolic link, a regular file,
// a trusted owner) and tells whether the content consumed so far was replaced:
// the file is another one, is shorter, was written to without growing (its
// modification time moved while its size stayed; kernels since 6.13 keep it
// distinct after a stat), or no longer holds the bytes sampled from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <sys/types.h>

#include "llvm/Support/Error.h"

namespace jitsym {

struct TrustPolicy {
  // Owner the file must have (besides root); unset accepts any owner.
  std::optional<uid_t> expectedOwner;
};

class AppendedFile {
public:
  AppendedFile(std::string path, TrustPolicy trust);

  struct Opened {
    Opened() = default;
    Opened(Opened &&other) noexcept;
    Opened &operator=(Opened &&) = delete;
    ~Opened();
    int fd = -1;
    uint64_t size = 0;     // when opened: a read takes the file up to here
    bool replaced = false; // the consumed content is gone: start over
    bool emptied = false;  // (see holdsNothingYet) it is gone, and nothing
                           // yet took its place: what was read stays, and the
                           // file is compared with it again at the next open
  };

  // Whether a file's new content, of `size` bytes, is still being started
  // (empty, or no whole line yet): see open().
  using NothingYet = bool (*)(int fd, uint64_t size);

  // Opens the file, of which `consumed` bytes were read before. With
  // `holdsNothingYet`, a file emptied to be written anew is not taken as
  // replaced while its new content holds nothing (a perf map that `jcmd
  // Compiler.perfmap` truncates and rewrites, caught before its first line
  // ends): the caller reads nothing and does not remember() this open.
  llvm::Expected<Opened> open(uint64_t consumed, NothingYet holdsNothingYet = nullptr);
  // Samples the first `consumed` bytes, to recognise them at the next open.
  void remember(int fd, uint64_t consumed);
  // Whether the bytes remembered last are still there: false when the file
  // was rewritten since (also during a read that took bytes appended to the
  // new content for bytes appended to the old).
  bool stillHolds(int fd) const;

  const std::string &path() const { return path_; }
  // "PATH: what" as an error.
  llvm::Error error(const std::string &what) const;

private:
  bool contentWasReplaced(int fd, const struct stat &st, uint64_t consumed) const;

  std::string path_;
  TrustPolicy trust_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  // The file as it was stat'ed at the last open (bytes appended during a read
  // change its size, so they are never taken for a rewrite).
  uint64_t statSize_ = 0;
  struct timespec statTime_ = {};
  struct Sample {
    uint64_t offset;
    std::string bytes;
  };
  std::vector<Sample> samples_;
};

// "nobody (uid 65534)", or "uid 4321" for a user with no name here: how the
// owner checks name users in their messages.
std::string describeUser(uint32_t uid);

// Reads exactly `size` bytes at `offset`; false on an error or the file's end.
bool preadExact(int fd, uint64_t offset, size_t size, std::string &out);

// The `size` bytes at `offset` of the file at `path` (a link is not followed);
// nothing when they cannot be read (the file went, or is shorter now).
std::optional<std::string> bytesAt(const std::string &path, uint64_t offset, size_t size);

} // namespace jitsym
