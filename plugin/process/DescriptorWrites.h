// What a write the compile watch stopped at adds to the perf map or the
// jitdump, told from the writing process's descriptors in this machine's
// /proc: a local process, or one qemu-user runs here (the guest's descriptors
// are the qemu process's).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "CompileWatch.h"
#include "process/ProcessSide.h"

namespace jitsym::plugin {

// The source `call` writes to (by its descriptor in /proc/PID/fd), and the
// bytes it adds after the file's end (none when it writes elsewhere in it).
// A buffered call (fwrite) needs `unflushed`, what its FILE's buffer holds;
// without one, it is not followed.
std::optional<PendingWrite> writeToSources(uint64_t pid, lldb::SBProcess &process,
                                           const WriteCall &call,
                                           const std::optional<std::string> &mapPath,
                                           const std::optional<std::string> &dumpPath,
                                           const std::function<std::string()> &unflushed);

// A file's size (through a link, as /proc/PID/fd/N is).
std::optional<uint64_t> fileSize(const std::string &path);

} // namespace jitsym::plugin
