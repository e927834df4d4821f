// Saving and reading back what a post-mortem needs of a JIT process.
#include "jitsym/files/Snapshot.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitsym/files/AppendedFile.h"
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/files/PrivateDir.h"
#include "jitsym/files/ProcessFiles.h"
#include "jitsym/formats/SnapshotDescription.h"
#include "llvm/Support/FileSystem.h"

namespace jitsym {
namespace {

llvm::Error failure(const std::string &message) {
  return llvm::createStringError(std::errc::invalid_argument, "%s", message.c_str());
}

// Copies a file the process wrote, with the readers' checks (no link, a regular
// file, owned by the process's user or root unless forced), up to the size it
// had when opened: a runtime appending meanwhile adds nothing half-written.
llvm::Error copyTrusted(const std::string &from, const std::string &to, TrustPolicy trust) {
  AppendedFile file(from, trust);
  llvm::Expected<AppendedFile::Opened> opened = file.open(0);
  if (!opened)
    return opened.takeError();
  std::string bytes;
  if (opened->size && !preadExact(opened->fd, 0, opened->size, bytes))
    return file.error("cannot be read: " + std::string(std::strerror(errno)));
  return writeFileAtomically(to, bytes);
}

std::string commandLineOf(const std::string &raw) {
  std::string line = raw;
  while (!line.empty() && line.back() == '\0')
    line.pop_back();
  for (char &c : line)
    if (c == '\0')
      c = ' ';
  return line;
}

std::string baseName(const std::string &path) { return path.substr(path.rfind('/') + 1); }

} // namespace

llvm::Expected<Snapshot> takeSnapshot(uint64_t pid, const std::string &directory,
                                      const SnapshotOptions &options) {
  const std::string proc = options.procRoot + "/" + std::to_string(pid);
  std::optional<ProcessIdentity> identity = readProcessIdentity(pid, options.procRoot);
  std::optional<std::string> mapsText = readFile(proc + "/maps");
  if (!identity || !mapsText)
    return failure("process " + std::to_string(pid) + ": not found, or its " + proc +
                   "/maps cannot be read (another user's process needs root)");
  if (std::error_code ec = llvm::sys::fs::create_directories(
          directory, /*IgnoreExisting=*/true, llvm::sys::fs::perms::owner_all))
    return failure(directory + ": cannot create the directory: " + ec.message());

  Snapshot snapshot;
  snapshot.directory = directory;
  snapshot.pid = pid;
  snapshot.namespacedPid = readNamespacedPid(pid, options.procRoot);
  snapshot.startTime = identity->startTime;
  if (std::optional<uid_t> uid = readProcessUid(pid, options.procRoot))
    snapshot.uid = *uid;
  llvm::SmallString<256> exe;
  if (!llvm::sys::fs::real_path(proc + "/exe", exe))
    snapshot.executable = std::string(exe);
  if (std::optional<std::string> cmdline = readFile(proc + "/cmdline"))
    snapshot.commandLine = commandLineOf(*cmdline);
  if (std::optional<std::string> boot = readFile(options.procRoot + "/sys/kernel/random/boot_id"))
    snapshot.bootId = std::string(llvm::StringRef(*boot).trim());
  snapshot.takenAt = static_cast<int64_t>(std::time(nullptr));

  snapshot.maps = directory + "/maps";
  if (llvm::Error err = writeFileAtomically(snapshot.maps, *mapsText))
    return err;
  TrustPolicy trust;
  if (!options.force && snapshot.uid)
    trust.expectedOwner = *snapshot.uid;
  if (std::optional<std::string> map = findPerfMap(pid, options.procRoot)) {
    snapshot.perfMapSource = *map;
    snapshot.perfMap = directory + "/" + baseName(*map);
    if (llvm::Error err = copyTrusted(*map, snapshot.perfMap, trust))
      return err;
  }
  const std::vector<Mapping> mappings = parseMemoryMap(*mapsText, proc + "/maps");
  if (std::optional<std::string> dump = findJitdump(pid, mappings, options.procRoot)) {
    snapshot.jitdumpSource = *dump;
    snapshot.jitdump = directory + "/" + baseName(*dump);
    for (int fd : descriptorsOfFile(pid, *dump, options.procRoot))
      if (auto position = readDescriptorPosition(pid, fd, options.procRoot))
        snapshot.jitdumpDescriptors.push_back({fd, position->offset});
    if (llvm::Error err = copyTrusted(*dump, snapshot.jitdump, trust))
      return err;
  }

  if (llvm::Error err =
          writeFileAtomically(directory + "/process.json", describeSnapshot(snapshot)))
    return err;
  return snapshot;
}

llvm::Expected<Snapshot> readSnapshot(const std::string &directory) {
  const std::string path = directory + "/process.json";
  std::optional<std::string> text = readFile(path);
  if (!text)
    return failure(directory + ": not a jitsym snapshot (no readable process.json; "
                               "'jitsym snapshot PID DIR' writes one)");
  return parseSnapshotDescription(*text, directory, path);
}

} // namespace jitsym
