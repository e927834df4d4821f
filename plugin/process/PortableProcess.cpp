// The portable side: the SB API only, as on a platform with no /proc (macOS,
// FreeBSD, qemu-user): LLDB's memory regions, LLDB's id of the process, files
// opened as local files at the paths perf and the runtimes use, owners
// checked against the user LLDB reports. No stdio buffer is read (glibc's
// internals) and no write(2) is watched (it needs the descriptor's file).
#include "process/ProcessSide.h"

#include <sys/stat.h>

#include "CompileWatch.h"
#include "process/DescriptorWrites.h"

namespace jitsym::plugin {
namespace {

class PortableProcess : public ProcessSide {
public:
  PortableProcess(lldb::SBTarget &target, bool emulated) : target_(target), emulated_(emulated) {}

  std::string kind() const override {
    return emulated_ ? "portable (SB API only), emulated by qemu-user" : "portable (SB API only)";
  }
  std::optional<ProcessIdentity> identify(lldb::SBProcess &process) override {
    ProcessIdentity identity{process.GetProcessID(), process.GetUniqueID()};
    // qemu's gdbstub says 1; the guest's getpid() is its main thread's id.
    if (emulated_) {
      lldb::SBThread main = process.GetThreadAtIndex(0);
      if (!main.IsValid())
        return std::nullopt;
      identity.pid = main.GetThreadID();
    }
    return identity;
  }
  std::vector<Mapping> memoryMap(lldb::SBProcess &process) override {
    return memoryMapFromLLDB(process);
  }
  FoundPerfMap findPerfMap(uint64_t pid, bool) override {
    const std::string path = "/tmp/perf-" + std::to_string(pid) + ".map";
    struct stat st; // of a link itself: the reader refuses links, with a message
    if (::lstat(path.c_str(), &st) == 0)
      return FoundPerfMap{path, std::nullopt};
    return {};
  }
  // The file named jit-PID.dump the process mapped, as perf finds it. qemu
  // answers no memory-region query, but maps the guest's files into its own
  // process on this machine: the file's path is in its /proc/PID/maps,
  // without the execute permission the guest asked for (qemu translates the
  // guest's code; it runs none of it in place), so any mapping of it counts.
  std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                         bool) override {
    if (emulated_ && mappings.empty()) {
      const std::string path = "/proc/" + std::to_string(pid) + "/maps";
      std::optional<std::string> text = readFile(path);
      std::vector<Mapping> host = text ? parseMemoryMap(*text, path) : std::vector<Mapping>();
      for (Mapping &m : host)
        m.execute = true;
      return jitdumpInMemoryMap(host, pid, pid);
    }
    return jitdumpInMemoryMap(mappings, pid, pid);
  }
  FollowedFile follow(const std::string &path, bool, bool force, const std::string &) override {
    FollowedFile file{path, path, {}, nullptr};
    lldb::SBProcessInfo info = target_.GetProcess().GetProcessInfo();
    if (!force && info.IsValid() && info.UserIDIsValid())
      file.trust.expectedOwner = info.GetUserID();
    return file;
  }
  std::string whereLooked(uint64_t pid) const override {
    const std::string id = std::to_string(pid);
    return "/tmp/perf-" + id + ".map and a jit-" + id + ".dump in LLDB's memory regions";
  }
  // A local file, read as a file.
  std::optional<EarlierMap> mapBeforeExec(const std::string &path) const override {
    return earlierMap(path);
  }
  // Under qemu-user the guest's descriptors are the qemu process's, in this
  // machine's /proc: a write to the perf map or jitdump is seen before it
  // runs (no stdio buffer: glibc's internals are the guest's).
  bool seesDescriptors() const override { return emulated_; }
  std::optional<PendingWrite> pendingWrite(lldb::SBProcess &process, lldb::SBThread &thread,
                                           const std::optional<std::string> &mapPath,
                                           const std::optional<std::string> &dumpPath) override {
    std::optional<ProcessIdentity> identity = identify(process);
    std::optional<WriteCall> call = CompileWatch::writeCallAt(thread);
    if (!emulated_ || !identity || !call)
      return std::nullopt;
    return writeToSources(identity->pid, process, *call, mapPath, dumpPath, nullptr);
  }
  // Source paths as they are (no other mount namespace is known).
  std::optional<std::string> sourceRoot(uint64_t) const override { return std::string(); }

private:
  lldb::SBTarget target_;
  bool emulated_;
};

} // namespace

std::unique_ptr<ProcessSide> makePortableProcess(lldb::SBTarget &target, bool emulated) {
  return std::make_unique<PortableProcess>(target, emulated);
}

} // namespace jitsym::plugin
