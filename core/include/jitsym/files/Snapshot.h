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

#include "jitsym/formats/SnapshotDescription.h"
#include "llvm/Support/Error.h"

namespace jitsym {

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
