// The core-file side: a core (ELF or minidump) opened in LLDB. Nothing of it is
// in /proc (its PID may belong to another process by now): an ELF core's memory
// map comes from its own program headers and NT_FILE note (LLDB's regions of it
// carry no file names, so libc's text would pass for JIT memory); a minidump's
// from LLDB, whose regions do carry them.
#include "process/ProcessSide.h"

#include <unistd.h>

#include "jitsym/formats/CoreFile.h"

namespace jitsym::plugin {
namespace {

class CoreProcess : public ProcessSide {
public:
  explicit CoreProcess(lldb::SBTarget &target) : target_(target) {}

  std::string kind() const override { return "core file"; }
  std::vector<Mapping> memoryMap(lldb::SBProcess &process) override {
    if (const CoreFileInfo *core = coreFile())
      return core->mappings;
    return memoryMapFromLLDB(process);
  }

  // Found only when nothing is named: /tmp/perf-PID.map if written before the core.
  FoundPerfMap findPerfMap(uint64_t pid, bool otherNamed) override {
    coreFile();
    if (otherNamed)
      return {};
    return FoundPerfMap{findPerfMapOfCore(pid, corePath_), std::nullopt};
  }
  // Where the process wrote it, if it is still there.
  std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                         bool otherNamed) override {
    if (otherNamed)
      return std::nullopt;
    std::optional<std::string> path = jitdumpInMemoryMap(mappings, pid, pid);
    if (path && ::access(path->c_str(), R_OK) != 0)
      path.reset();
    return path;
  }
  // Trusted if owned by the core's user (NT_PRPSINFO) or root.
  FollowedFile follow(const std::string &path, bool, bool force, const std::string &) override {
    FollowedFile file{path, path, {}, nullptr};
    const CoreFileInfo *core = coreFile();
    if (!force && core && core->process && core->process->uid)
      file.trust.expectedOwner = *core->process->uid;
    return file;
  }

  llvm::Error checkSync(const SyncFacts &facts, std::vector<Diagnostic> &warnings) override {
    if (facts.added == 0 && facts.shadowed > 0)
      return llvm::createStringError(
          std::errc::invalid_argument,
          "%s: none of its %llu symbols lies in the anonymous memory of the core "
          "(process %llu): not from this process, or from another run of it",
          facts.sources.c_str(), static_cast<unsigned long long>(facts.shadowed),
          static_cast<unsigned long long>(facts.pid));
    if (facts.jitdumpPid && *facts.jitdumpPid != facts.pid)
      warnings.push_back({facts.jitdumpName, 0,
                          "written by process " + std::to_string(*facts.jitdumpPid) +
                              ", the core is of process " + std::to_string(facts.pid)});
    if (core_ && core_->truncated())
      warnings.push_back(
          {corePath_, 0,
           "truncated: " + std::to_string(core_->fileSize) + " bytes of the " +
               std::to_string(core_->bytesNeeded) + " its segments need; the memory of " +
               std::to_string(core_->missing.size()) +
               " mappings is missing (code there cannot be disassembled, frames through it "
               "may not unwind)"});
    return llvm::Error::success();
  }
  std::vector<Diagnostic> takeDiagnostics() override { return std::exchange(diagnostics_, {}); }

private:
  // An ELF core's memory map and process, from its program headers and notes
  // (read once); null for a minidump or a core that cannot be read.
  const CoreFileInfo *coreFile() {
    if (!coreRead_) {
      coreRead_ = true;
      lldb::SBProcess process = target_.GetProcess();
      const char *plugin = process.GetPluginName();
      char path[4096];
      if (plugin && std::string(plugin) == "elf-core" &&
          process.GetCoreFile().GetPath(path, sizeof(path)) > 0) {
        corePath_ = path;
        llvm::Expected<CoreFileInfo> info = readCoreFile(corePath_);
        if (info)
          core_ = std::move(*info);
        else
          diagnostics_.push_back({corePath_, 0, llvm::toString(info.takeError())});
      }
    }
    return core_ ? &*core_ : nullptr;
  }

  lldb::SBTarget target_;
  std::optional<CoreFileInfo> core_;
  std::string corePath_;
  bool coreRead_ = false;
  std::vector<Diagnostic> diagnostics_;
};

} // namespace

std::unique_ptr<ProcessSide> makeCoreProcess(lldb::SBTarget &target) {
  return std::make_unique<CoreProcess>(target);
}

} // namespace jitsym::plugin
