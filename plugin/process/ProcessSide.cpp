// Choosing a process's side, and what the sides share.
#include "process/ProcessSide.h"

#include <string>

namespace jitsym::plugin {

std::string ProcessSide::whereLooked(uint64_t pid) const {
  const std::string id = std::to_string(pid);
  return "/tmp/perf-" + id + ".map, the container and Android locations, and a jit-" + id +
         ".dump in its memory map";
}

std::unique_ptr<ProcessSide> chooseProcessSide(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                               bool portable) {
  lldb::SBProcess process = target.GetProcess();
  lldb::SBFileSpec core = process.GetCoreFile();
  if (core.IsValid() && core.GetFilename() != nullptr)
    return makeCoreProcess(target);
  lldb::SBPlatform platform = target.GetPlatform();
  const std::string name = platform.IsValid() && platform.GetName() ? platform.GetName() : "";
  if (name == "host")
    return portable ? makePortableProcess(target) : makeLocalProcess(target);
  if (platform.IsValid() && platform.IsConnected())
    return makeRemoteProcess(debugger, target);
  // A platform that answers neither like this machine nor through a
  // connection (qemu-user): what the SB API gives.
  return makePortableProcess(target);
}

std::vector<Mapping> memoryMapFromLLDB(lldb::SBProcess &process) {
  std::vector<Mapping> mappings;
  lldb::SBMemoryRegionInfoList regions = process.GetMemoryRegions();
  for (uint32_t i = 0; i < regions.GetSize(); ++i) {
    lldb::SBMemoryRegionInfo info;
    if (!regions.GetMemoryRegionAtIndex(i, info) || !info.IsMapped())
      continue;
    Mapping m;
    m.start = info.GetRegionBase();
    m.end = info.GetRegionEnd();
    m.read = info.IsReadable();
    m.write = info.IsWritable();
    m.execute = info.IsExecutable();
    if (const char *name = info.GetName())
      m.path = name;
    m.inode = m.path.empty() ? 0 : 1;
    mappings.push_back(std::move(m));
  }
  return mappings;
}

} // namespace jitsym::plugin
