// The remote side: a process behind a platform connection (lldb-server
// platform, remote-android). Its files are copied through the platform
// (PlatformFile.h) into this session's private directory, appended bytes only
// (FileMirror.h), and taken on trust: there is no remote owner to check.
#include "process/ProcessSide.h"

#include "process/PlatformFile.h"

namespace jitsym::plugin {
namespace {

class RemoteProcess : public ProcessSide {
public:
  RemoteProcess(lldb::SBDebugger &debugger, lldb::SBTarget &target)
      : debugger_(debugger), target_(target) {}

  std::string kind() const override {
    lldb::SBPlatform platform = target_.GetPlatform();
    return std::string("remote, through platform ") +
           (platform.GetName() ? platform.GetName() : "?");
  }
  // lldb-server fills the regions with file names.
  std::vector<Mapping> memoryMap(lldb::SBProcess &process) override {
    return memoryMapFromLLDB(process);
  }

  // The Android locations in seed 000's order; the package from the remote
  // command line.
  FoundPerfMap findPerfMap(uint64_t pid, bool) override {
    lldb::SBPlatform platform = target_.GetPlatform();
    const bool android =
        std::string(platform.GetName() ? platform.GetName() : "") == "remote-android";
    const std::string argv0 = platformProcessArgv0(debugger_, target_, pid).value_or("");
    for (const std::string &candidate : remotePerfMapCandidates(pid, argv0, android))
      if (platformFileExists(target_, candidate))
        return FoundPerfMap{candidate, std::nullopt};
    return {};
  }
  std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                         bool) override {
    std::optional<std::string> path = jitdumpInMemoryMap(mappings, pid, pid);
    if (path && !platformFileExists(target_, *path))
      path.reset();
    return path;
  }
  // Read through a copy in the private directory, which the trust checks
  // would only see as ours.
  FollowedFile follow(const std::string &path, bool text, bool,
                      const std::string &directory) override {
    const std::string local = directory + (text ? "/remote-perf.map" : "/remote-jit.dump");
    auto mirror = std::make_unique<FileMirror>(
        std::make_unique<PlatformFile>(debugger_, target_, path, local + ".download", text),
        local);
    FollowedFile file{mirror->name(), mirror->localPath(), {}, nullptr};
    file.mirror = std::move(mirror);
    return file;
  }
  std::string whereLooked(uint64_t pid) const override {
    lldb::SBPlatform platform = target_.GetPlatform();
    return ProcessSide::whereLooked(pid) + ", on platform " +
           (platform.GetName() ? platform.GetName() : "?");
  }

private:
  lldb::SBDebugger debugger_;
  mutable lldb::SBTarget target_; // the SB API's getters are not const
};

} // namespace

std::unique_ptr<ProcessSide> makeRemoteProcess(lldb::SBDebugger &debugger,
                                               lldb::SBTarget &target) {
  return std::make_unique<RemoteProcess>(debugger, target);
}

} // namespace jitsym::plugin
