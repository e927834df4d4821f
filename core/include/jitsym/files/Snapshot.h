// What a post-mortem needs of a JIT process, saved while the process exists:
// its perf map and jitdump (the runtime may delete them at exit, or the next
// process with the same PID overwrite them), its memory map, and who it was.
// `jitsym snapshot PID DIR` takes one, also from a core_pattern pipe helper
// (the crashing process still exists while the kernel pipes its core); jit-sync
// --dir and jit-symbolicate --dir read one back.
//
// DIR/process.json describes the process and names the files saved beside it:
// maps (the text of /proc/PID/maps), perf-PID.map, jit-PID.dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "llvm/Support/Error.h"

namespace jitsym {

struct DescriptorAt {
  int fd = -1;
  uint64_t offset = 0;
};

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

struct SnapshotOptions {
  bool force = false;               // copy files not owned by the process's user or root
  std::string procRoot = "/proc";   // tests
};

// Saves process `pid` into `directory` (created 0700 if missing). Fails when the
// process does not exist; a process with neither file is saved all the same
// (its memory map and identity still serve a core file).
llvm::Expected<Snapshot> takeSnapshot(uint64_t pid, const std::string &directory,
                                      const SnapshotOptions &options = {});
// Reads DIR/process.json back; the paths it names must be inside `directory`.
llvm::Expected<Snapshot> readSnapshot(const std::string &directory);

} // namespace jitsym
