// DIR/process.json, the description of a snapshot (see Snapshot.h), as pure
// functions over its text: what `jitsym snapshot` writes and what jit-sync
// --dir and jit-symbolicate --dir read back. A snapshot directory may come
// from another machine or another user, so the text is not trusted: the file
// names it gives must name files inside the directory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/Support/Error.h"

namespace jitsym {

// A descriptor of the process on its jitdump, and where it stood.
struct DescriptorAt {
  int fd = -1;
  uint64_t offset = 0;
};

// A snapshot, as DIR/process.json describes it (files/Snapshot.h takes one).
struct Snapshot {
  std::string directory;
  uint64_t pid = 0;
  uint64_t namespacedPid = 0;
  uint64_t startTime = 0; // clock ticks since boot, as ProcessIdentity
  std::optional<uint32_t> uid;
  std::string executable;  // /proc/PID/exe
  std::string commandLine; // arguments joined by spaces
  std::string bootId;      // /proc/sys/kernel/random/boot_id
  int64_t takenAt = 0;     // seconds since the epoch
  // Paths of the saved files (inside `directory`); empty when there was none.
  std::string maps;
  std::string perfMap;
  std::string jitdump;
  std::string perfMapSource; // where they were found in the process
  std::string jitdumpSource;
  // The process's descriptors on its jitdump and where they stood: records
  // past the file's end were still in the runtime's stdio buffer.
  std::vector<DescriptorAt> jitdumpDescriptors;
};

// The JSON text of `snapshot`; the saved files are named by their base names.
// Bytes of its strings that are not UTF-8 are written as U+FFFD.
std::string describeSnapshot(const Snapshot &snapshot);

// The snapshot `text` describes, its saved files as paths inside `directory`;
// `path` (the file the text came from) is for messages. A missing or mistyped
// field is left at its default; fails when the text is not a JSON object with
// an unsigned "pid", or a saved file is named by anything but a file name.
llvm::Expected<Snapshot> parseSnapshotDescription(std::string_view text,
                                                  const std::string &directory,
                                                  const std::string &path);

} // namespace jitsym
