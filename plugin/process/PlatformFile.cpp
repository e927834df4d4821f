#include "PlatformFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <utility>
#include <unistd.h>

#include "PlatformAnswers.h"
#include "jitsym/files/AppendedFile.h"

namespace jitsym::plugin {
namespace {

// NULs the file API may meet in one read before the file is taken for binary:
// each costs a request (the API's answer stops at a NUL).
constexpr int kMaxNulsForFileApi = 16;

llvm::Error failure(const std::string &what) {
  return llvm::createStringError(std::errc::io_error, "%s", what.c_str());
}

// LLDB's command line takes a double-quoted argument with \ escapes; a path with
// characters it treats specially otherwise is refused rather than guessed at.
llvm::Expected<std::string> quotedForLldb(const std::string &path) {
  if (path.find_first_of("\"\\`\n") != std::string::npos)
    return failure(path + ": a path with '\"', '\\', '`' or a newline cannot be read "
                          "through the platform");
  return "\"" + path + "\"";
}

std::string quotedForShell(const std::string &path) {
  std::string quoted = "'";
  for (char c : path)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs one LLDB command with the target's platform selected (the `platform`
// commands act on the selected one), the selection restored after.
llvm::Expected<std::string> runCommand(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                       const std::string &line) {
  lldb::SBPlatform previous = debugger.GetSelectedPlatform();
  lldb::SBPlatform platform = target.GetPlatform();
  debugger.SetSelectedPlatform(platform);
  lldb::SBCommandReturnObject result;
  debugger.GetCommandInterpreter().HandleCommand(line.c_str(), result, false);
  debugger.SetSelectedPlatform(previous);
  std::string output = result.GetOutput() ? result.GetOutput() : "";
  if (!result.Succeeded()) {
    std::string error = result.GetError() ? result.GetError() : "";
    if (error.rfind("error: ", 0) == 0)
      error.erase(0, 7);
    while (!error.empty() && (error.back() == '\n' || error.back() == ' '))
      error.pop_back();
    return failure("'" + line + "' failed: " + (error.empty() ? output : error));
  }
  return output;
}

// An open descriptor of the platform's file API, closed when done.
class RemoteDescriptor {
public:
  // `platform file open` takes its arguments joined by single spaces, quotes
  // included, so only a path that needs no quoting can be given to it. It
  // opens read-write and creates a missing file: it is called only for a file
  // just seen to exist (and the process that writes it is stopped).
  static llvm::Expected<RemoteDescriptor> open(lldb::SBDebugger &debugger,
                                               lldb::SBTarget &target,
                                               const std::string &path) {
    if (path.empty() || path[0] != '/' ||
        path.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789/._-+:@,=") != std::string::npos)
      return failure(path + ": not a path 'platform file open' takes unquoted");
    llvm::Expected<std::string> out = runCommand(debugger, target, "platform file open " + path);
    if (!out)
      return out.takeError();
    std::optional<uint64_t> fd = numberAfter(*out, "File Descriptor = ");
    if (!fd)
      return failure("cannot open it: " + *out);
    return RemoteDescriptor(debugger, target, *fd);
  }
  RemoteDescriptor(RemoteDescriptor &&other)
      : debugger_(other.debugger_), target_(other.target_), fd_(std::exchange(other.fd_, -1)) {}
  ~RemoteDescriptor() {
    if (fd_ >= 0)
      llvm::consumeError(
          runCommand(debugger_, target_, "platform file close " + std::to_string(fd_))
              .takeError());
  }

  // Up to `count` bytes at `offset` as the API gives them: `returned` is how
  // many were read, and the text stops before the first NUL among them.
  llvm::Expected<std::string> read(uint64_t offset, uint64_t count, uint64_t &returned) {
    llvm::Expected<std::string> out =
        runCommand(debugger_, target_,
                   "platform file read -o " + std::to_string(offset) + " -c " +
                       std::to_string(count) + " " + std::to_string(fd_));
    if (!out)
      return out.takeError();
    std::optional<std::string> text = fileReadData(*out, returned);
    if (!text)
      return failure("unexpected answer: " + *out);
    return *text;
  }

private:
  RemoteDescriptor(lldb::SBDebugger &debugger, lldb::SBTarget &target, uint64_t fd)
      : debugger_(debugger), target_(target), fd_(static_cast<int64_t>(fd)) {}
  lldb::SBDebugger debugger_;
  lldb::SBTarget target_;
  int64_t fd_;
};

} // namespace

PlatformFile::PlatformFile(lldb::SBDebugger debugger, lldb::SBTarget target, std::string path,
                           std::string downloadPath, bool text)
    : debugger_(debugger), target_(target), path_(std::move(path)),
      download_(std::move(downloadPath)),
      method_(text ? Method::FileApi : Method::Shell) {
  lldb::SBPlatform platform = target_.GetPlatform();
  const char *platformName = platform.IsValid() ? platform.GetName() : nullptr;
  name_ = std::string(platformName ? platformName : "remote") + ":" + path_;
}

PlatformFile::~PlatformFile() { ::unlink(download_.c_str()); }

std::string PlatformFile::name() const { return name_; }

std::string PlatformFile::transport() const {
  switch (method_) {
  case Method::FileApi:
    return "the platform's file API";
  case Method::Shell:
    return std::string("the platform's shell (tail | base64)") +
           (fallbackReason_.empty() ? "" : ", not its file API: " + fallbackReason_);
  case Method::Download:
    return "whole-file downloads (" + fallbackReason_ + ")";
  }
  return {};
}

llvm::Expected<uint64_t> PlatformFile::size() {
  llvm::Expected<std::string> quoted = quotedForLldb(path_);
  if (!quoted)
    return quoted.takeError();
  llvm::Expected<std::string> out = runCommand(debugger_, target_, "platform get-size " + *quoted);
  std::optional<uint64_t> size = out ? numberAfter(*out, "(remote): ") : std::nullopt;
  if (!size) {
    llvm::consumeError(out.takeError());
    return failure("no such file on the platform, or its size cannot be read there");
  }
  return *size;
}

llvm::Expected<std::string> PlatformFile::read(uint64_t offset, uint64_t count) {
  if (method_ == Method::FileApi) {
    bool binary = false;
    llvm::Expected<std::string> bytes = readWithFileApi(offset, count, binary);
    if (bytes && !binary)
      return bytes;
    fallbackReason_ = bytes ? "NULs in the file" : llvm::toString(bytes.takeError());
    method_ = Method::Shell;
  }
  if (method_ == Method::Shell) {
    llvm::Expected<std::string> bytes = readWithShell(offset, count);
    if (bytes)
      return bytes;
    fallbackReason_ += (fallbackReason_.empty() ? "" : "; then ") + llvm::toString(bytes.takeError());
    method_ = Method::Download;
  }
  return readFromDownload(offset, count);
}

llvm::Expected<std::string> PlatformFile::readWithFileApi(uint64_t offset, uint64_t count,
                                                         bool &binary) {
  llvm::Expected<RemoteDescriptor> fd = RemoteDescriptor::open(debugger_, target_, path_);
  if (!fd)
    return fd.takeError();
  std::string bytes;
  int nuls = 0;
  while (bytes.size() < count) {
    const uint64_t at = offset + bytes.size();
    uint64_t returned = 0;
    llvm::Expected<std::string> text = fd->read(at, count - bytes.size(), returned);
    if (!text)
      return text.takeError();
    if (returned == 0)
      return failure("the file ends at byte " + std::to_string(at));
    bytes += *text;
    if (text->size() < returned) { // the answer stopped at a NUL
      if (++nuls > kMaxNulsForFileApi) {
        binary = true;
        return bytes;
      }
      bytes += '\0';
    }
  }
  return bytes;
}

llvm::Expected<std::string> PlatformFile::readWithShell(uint64_t offset, uint64_t count) {
  const std::string line = "tail -c +" + std::to_string(offset + 1) + " " +
                           quotedForShell(path_) + " | head -c " + std::to_string(count) +
                           " | base64";
  lldb::SBPlatformShellCommand shell(line.c_str());
  shell.SetTimeoutSeconds(120);
  lldb::SBPlatform platform = target_.GetPlatform();
  lldb::SBError error = platform.Run(shell);
  if (error.Fail())
    return failure("'" + line + "' failed: " + (error.GetCString() ? error.GetCString() : ""));
  std::string text = shell.GetOutput() ? shell.GetOutput() : "";
  std::optional<std::string> decoded =
      shell.GetStatus() == 0 ? decodeBase64Lines(text) : std::nullopt;
  if (!decoded)
    return failure("'" + line + "' failed (exit status " + std::to_string(shell.GetStatus()) +
                   "): " + text.substr(0, text.find('\n')));
  if (decoded->size() != count)
    return failure("'" + line + "' gave " + std::to_string(decoded->size()) + " bytes, not " +
                   std::to_string(count));
  return *decoded;
}

llvm::Expected<std::string> PlatformFile::readFromDownload(uint64_t offset, uint64_t count) {
  if (offset + count > downloaded_) {
    lldb::SBFileSpec source(path_.c_str(), false), destination(download_.c_str(), false);
    lldb::SBPlatform platform = target_.GetPlatform();
    ::unlink(download_.c_str());
    lldb::SBError error = platform.Get(source, destination);
    if (error.Fail())
      return failure(std::string("cannot download it: ") +
                     (error.GetCString() ? error.GetCString() : "") + " (after: " +
                     fallbackReason_ + ")");
    struct stat st {};
    downloaded_ = ::stat(download_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  const int fd = ::open(download_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  std::string bytes;
  const bool ok = fd >= 0 && preadExact(fd, offset, count, bytes);
  if (fd >= 0)
    ::close(fd);
  if (!ok)
    return failure("the download has " + std::to_string(downloaded_) + " bytes, fewer than " +
                   std::to_string(offset + count));
  return bytes;
}

bool platformFileExists(lldb::SBTarget target, const std::string &path) {
  lldb::SBPlatform platform = target.GetPlatform();
  return platform.IsValid() && platform.GetFilePermissions(path.c_str()) != 0;
}

std::optional<std::string> platformProcessArgv0(lldb::SBDebugger debugger, lldb::SBTarget target,
                                                uint64_t pid) {
  const std::string path = "/proc/" + std::to_string(pid) + "/cmdline";
  // The file API opens read-write, which only root may do to that file; the
  // shell's output stops at the first NUL just the same.
  if (llvm::Expected<RemoteDescriptor> fd = RemoteDescriptor::open(debugger, target, path)) {
    uint64_t returned = 0;
    llvm::Expected<std::string> text = fd->read(0, 4096, returned);
    if (text)
      return *text;
    llvm::consumeError(text.takeError());
  } else {
    llvm::consumeError(fd.takeError());
  }
  lldb::SBPlatformShellCommand shell(("head -c 4096 " + path).c_str());
  shell.SetTimeoutSeconds(10);
  lldb::SBPlatform platform = target.GetPlatform();
  if (platform.Run(shell).Fail() || shell.GetStatus() != 0 || !shell.GetOutput())
    return std::nullopt;
  return std::string(shell.GetOutput());
}

} // namespace jitsym::plugin
