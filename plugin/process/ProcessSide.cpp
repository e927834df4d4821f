// Choosing a process's side, and what the sides share.
#include "process/ProcessSide.h"

#include <algorithm>
#include <string>

#include "PendingBreakpoints.h"

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
  // qemu-user runs the program on this machine, but answers as a gdbstub:
  // no /proc of the guest, no memory regions; what the SB API gives.
  if (name == "qemu-user")
    return makePortableProcess(target, /*emulated=*/true);
  if (platform.IsValid() && platform.IsConnected())
    return makeRemoteProcess(debugger, target);
  // A platform that answers neither like this machine nor through a
  // connection: what the SB API gives.
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

namespace {

constexpr uint64_t kPageSize = 4096;
// Pieces closer than this are read as one run, up to kLongestRun bytes: one
// request instead of many, for a few bytes more.
constexpr uint64_t kMergeGap = 1024;
constexpr uint64_t kLongestRun = 16 * kPageSize;

// Up to `length` bytes at `address`; where memory stops being readable, what
// came before (page by page).
std::string readUpTo(lldb::SBProcess &process, uint64_t address, uint64_t length) {
  std::string bytes(length, '\0');
  lldb::SBError error;
  size_t got = process.ReadMemory(address, bytes.data(), bytes.size(), error);
  if (error.Success() && got == bytes.size())
    return bytes;
  bytes.clear();
  for (uint64_t at = address; at < address + length;) {
    const uint64_t take = std::min(address + length, (at & ~(kPageSize - 1)) + kPageSize) - at;
    std::string page(take, '\0');
    lldb::SBError pageError;
    got = process.ReadMemory(at, page.data(), page.size(), pageError);
    if (!pageError.Success() || got != page.size())
      break;
    bytes += page;
    at += take;
  }
  return bytes;
}

} // namespace

std::vector<PieceRun> runsOfPieces(const std::vector<AddressRange> &pieces) {
  std::vector<PieceRun> runs;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (!runs.empty()) {
      PieceRun &run = runs.back();
      const uint64_t end = std::max(run.range.end, pieces[i].end);
      if (pieces[i].start >= run.range.start && pieces[i].start < run.range.end + kMergeGap &&
          end - run.range.start <= kLongestRun) {
        run.range.end = end;
        run.last = i;
        continue;
      }
    }
    runs.push_back({pieces[i], i, i});
  }
  return runs;
}

std::vector<std::string> ProcessSide::readPieces(lldb::SBProcess &process,
                                                 const std::vector<AddressRange> &pieces) {
  const DirectRead direct = directRead(process);
  if (!direct)
    return readPiecesThroughLLDB(process, pieces);
  std::vector<std::string> out = direct(pieces);
  out.resize(pieces.size());
  // LLDB reads what could not be read so, and the pieces under its traps
  // (taking them out).
  lldb::SBTarget target = process.GetTarget();
  const std::vector<uint64_t> traps = breakpointLocationAddresses(target);
  std::vector<size_t> again;
  std::vector<AddressRange> ranges;
  for (size_t i = 0; i < pieces.size(); ++i)
    if (out[i].empty() || pieces[i].containsAny(traps)) {
      again.push_back(i);
      ranges.push_back(pieces[i]);
    }
  std::vector<std::string> reread = readPiecesThroughLLDB(process, ranges);
  for (size_t k = 0; k < again.size(); ++k)
    out[again[k]] = std::move(reread[k]);
  return out;
}

std::vector<std::string> readPiecesThroughLLDB(lldb::SBProcess &process,
                                               const std::vector<AddressRange> &pieces) {
  std::vector<std::string> out(pieces.size());
  if (!process.IsValid())
    return out;
  for (const PieceRun &run : runsOfPieces(pieces)) {
    const std::string bytes = readUpTo(process, run.range.start, run.range.end - run.range.start);
    for (size_t i = run.first; i <= run.last; ++i) {
      const uint64_t offset = pieces[i].start - run.range.start;
      if (offset < bytes.size())
        out[i] = bytes.substr(offset, std::min<uint64_t>(pieces[i].end - pieces[i].start,
                                                         bytes.size() - offset));
    }
  }
  return out;
}

} // namespace jitsym::plugin
