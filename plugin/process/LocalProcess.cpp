// The local side: a process of this machine, read through /proc.
#include "process/ProcessSide.h"

#include <sys/stat.h>
#include <sys/uio.h>

#include <algorithm>

#include "CompileWatch.h"
#include "process/DescriptorWrites.h"
#include "process/StdioBuffer.h"

namespace jitsym::plugin {
namespace {

class LocalProcess : public ProcessSide {
public:
  explicit LocalProcess(lldb::SBTarget &target) : target_(target) {}

  std::string kind() const override { return "local"; }

  std::optional<ProcessIdentity> identify(lldb::SBProcess &process) override {
    // Killed while LLDB held it stopped: LLDB still shows it stopped, but
    // nothing of it is left to read.
    return readLiveProcessIdentity(process.GetProcessID());
  }
  bool hasEnded(const ProcessIdentity &identity) const override {
    return processHasEnded(identity);
  }
  std::vector<Mapping> memoryMap(lldb::SBProcess &process) override {
    const std::string path = "/proc/" + std::to_string(process.GetProcessID()) + "/maps";
    if (std::optional<std::string> text = readFile(path))
      return parseMemoryMap(*text, path);
    return {};
  }

  FoundPerfMap findPerfMap(uint64_t pid, bool) override {
    PerfMapSearch search = searchPerfMap(pid);
    return FoundPerfMap{search.path, search.stale};
  }
  std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                         bool) override {
    return jitsym::findJitdump(pid, mappings);
  }
  FollowedFile follow(const std::string &path, bool, bool force, const std::string &) override {
    FollowedFile file{path, path, {}, nullptr};
    if (!force)
      file.trust.expectedOwner = readProcessUid(target_.GetProcess().GetProcessID());
    return file;
  }

  // Files as this process can open them: through its root (its mount namespace).
  std::optional<std::string> sourceRoot(uint64_t pid) const override {
    return "/proc/" + std::to_string(pid) + "/root";
  }
  // The FILE on a descriptor of the dump whose offset is the file's end.
  std::string unflushedBytes(lldb::SBTarget &target, lldb::SBProcess &process,
                             const std::string &path) override {
    const uint64_t pid = process.GetProcessID();
    std::optional<uint64_t> size = fileSize(path);
    if (!size)
      return {};
    std::vector<int> atEnd;
    for (int fd : descriptorsOfFile(pid, path)) {
      std::optional<DescriptorPosition> position = readDescriptorPosition(pid, fd);
      if (position && position->offset == *size)
        atEnd.push_back(fd);
    }
    return stdio_.unflushed(target, process, atEnd);
  }
  std::optional<EarlierMap> mapBeforeExec(const std::string &path) const override {
    return earlierMap(path);
  }

  bool seesDescriptors() const override { return true; }

  DirectRead directRead(lldb::SBProcess &process) override {
    const pid_t pid = static_cast<pid_t>(process.GetProcessID());
    return [pid](const std::vector<AddressRange> &pieces) {
      std::vector<std::string> out(pieces.size());
      // Close pieces are read as one run (dense code: a run per 64 KiB), the
      // runs 1024 (IOV_MAX) to a call.
      const std::vector<PieceRun> runs = runsOfPieces(pieces);
      constexpr size_t kPerCall = 1024;
      for (size_t first = 0; first < runs.size(); first += kPerCall) {
        const size_t count = std::min(kPerCall, runs.size() - first);
        std::vector<std::string> bytes(count);
        std::vector<iovec> local(count), remote(count);
        size_t wanted = 0;
        for (size_t i = 0; i < count; ++i) {
          const AddressRange &range = runs[first + i].range;
          bytes[i].resize(range.end - range.start);
          local[i] = {bytes[i].data(), bytes[i].size()};
          remote[i] = {reinterpret_cast<void *>(range.start), bytes[i].size()};
          wanted += bytes[i].size();
        }
        const ssize_t got = ::process_vm_readv(pid, local.data(), count, remote.data(), count, 0);
        // Refused (ptrace rules) or stopped at unreadable memory: the runs
        // after the last one read whole stay empty.
        size_t whole = count, done = got > 0 ? static_cast<size_t>(got) : 0;
        if (got != static_cast<ssize_t>(wanted)) {
          whole = 0;
          while (whole < count && done >= bytes[whole].size())
            done -= bytes[whole++].size();
        }
        for (size_t i = 0; i < whole; ++i) {
          const PieceRun &run = runs[first + i];
          for (size_t p = run.first; p <= run.last; ++p)
            out[p] = bytes[i].substr(pieces[p].start - run.range.start,
                                     pieces[p].end - pieces[p].start);
        }
      }
      return out;
    };
  }

  std::optional<PendingWrite> pendingWrite(lldb::SBProcess &process, lldb::SBThread &thread,
                                           const std::optional<std::string> &mapPath,
                                           const std::optional<std::string> &dumpPath) override {
    std::optional<WriteCall> call = CompileWatch::writeCallAt(thread);
    if (!call)
      return std::nullopt;
    const uint64_t pid = process.GetProcessID();
    return writeToSources(pid, process, *call, mapPath, dumpPath, [&] {
      return stdio_.unflushed(target_, process, {call->fd});
    });
  }

private:
  lldb::SBTarget target_;
  StdioBuffer stdio_;
};

} // namespace

std::unique_ptr<ProcessSide> makeLocalProcess(lldb::SBTarget &target) {
  return std::make_unique<LocalProcess>(target);
}

} // namespace jitsym::plugin
