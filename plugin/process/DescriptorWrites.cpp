// A watched write's bytes, placed by the writer's descriptors.
#include "process/DescriptorWrites.h"

#include <sys/stat.h>

namespace jitsym::plugin {

std::optional<uint64_t> fileSize(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return std::nullopt;
  return static_cast<uint64_t>(st.st_size);
}

std::optional<PendingWrite> writeToSources(uint64_t pid, lldb::SBProcess &process,
                                           const WriteCall &call,
                                           const std::optional<std::string> &mapPath,
                                           const std::optional<std::string> &dumpPath,
                                           const std::function<std::string()> &unflushed) {
  PendingWrite write;
  if (mapPath && descriptorIsFile(pid, call.fd, *mapPath))
    write.to = PendingWrite::To::PerfMap;
  else if (dumpPath ? descriptorIsFile(pid, call.fd, *dumpPath)
                    : descriptorIsJitdump(pid, call.fd))
    write.to = PendingWrite::To::Jitdump;
  else
    return std::nullopt;
  if (call.buffered) {
    if (!unflushed)
      return std::nullopt;
    // Into the FILE's buffer: after what it holds, which follows the file.
    write.bytes = unflushed() + call.bytes(process);
    return write;
  }
  // The bytes follow the file's end only if they land there; otherwise the
  // file alone is read.
  std::optional<DescriptorPosition> position = readDescriptorPosition(pid, call.fd);
  std::optional<uint64_t> size =
      fileSize("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(call.fd));
  if (!position || !size)
    return write;
  const bool atEnd = call.offset ? *call.offset == *size
                                 : position->appends || position->offset == *size;
  if (atEnd)
    write.bytes = call.bytes(process);
  return write;
}

} // namespace jitsym::plugin
