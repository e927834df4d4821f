// A file on the other side of a target's platform connection (lldb-server
// platform, remote-android), read through LLDB: the platform's file API
// (`platform file read`, vFile:pread) for text; the platform's shell for bytes
// that API cannot return (it prints what it read as a C string, so a NUL ends
// it); and, where the shell lacks `tail` or `base64`, a download of the whole
// file (SBPlatform::Get).
#pragma once

#include <optional>
#include <string>

#include "jitsym/files/FileMirror.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class PlatformFile : public RemoteFile {
public:
  // `text`: a perf map, whose bytes the file API returns as they are; else
  // (a jitdump) the shell is used from the start. `downloadPath` is where a
  // whole-file download goes, if one is needed.
  PlatformFile(lldb::SBDebugger debugger, lldb::SBTarget target, std::string path,
               std::string downloadPath, bool text);
  ~PlatformFile() override;

  llvm::Expected<uint64_t> size() override;
  llvm::Expected<std::string> read(uint64_t offset, uint64_t count) override;
  std::string name() const override;
  // How the bytes come now, and why not by an earlier way.
  std::string transport() const override;

private:
  enum class Method { FileApi, Shell, Download };
  llvm::Expected<std::string> readWithFileApi(uint64_t offset, uint64_t count, bool &binary);
  llvm::Expected<std::string> readWithShell(uint64_t offset, uint64_t count);
  llvm::Expected<std::string> readFromDownload(uint64_t offset, uint64_t count);

  lldb::SBDebugger debugger_;
  lldb::SBTarget target_;
  std::string path_;
  std::string name_; // PLATFORM:PATH, asked for at every sync and diagnostic
  std::string download_; // where a whole-file download goes
  uint64_t downloaded_ = 0; // its size when it was made
  Method method_;
  std::string fallbackReason_;
};

// Whether `path` names a file on the target's platform.
bool platformFileExists(lldb::SBTarget target, const std::string &path);

// The first argument of a process on the target's platform (its
// /proc/PID/cmdline up to the first NUL), if the platform gives it.
std::optional<std::string> platformProcessArgv0(lldb::SBDebugger debugger, lldb::SBTarget target,
                                                uint64_t pid);

} // namespace jitsym::plugin
