// Saving and reading back what a post-mortem needs of a JIT process.
#include "jitsym/Snapshot.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jitsym/AppendedFile.h"
#include "jitsym/MemoryMap.h"
#include "jitsym/PrivateDir.h"
#include "jitsym/ProcessFiles.h"
#include "llvm/Support/FileSystem.h"
#include <nlohmann/json.hpp>

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

  nlohmann::ordered_json json;
  json["pid"] = snapshot.pid;
  json["namespaced_pid"] = snapshot.namespacedPid;
  json["start_time_ticks"] = snapshot.startTime;
  if (snapshot.uid)
    json["uid"] = *snapshot.uid;
  json["executable"] = snapshot.executable;
  json["command_line"] = snapshot.commandLine;
  json["boot_id"] = snapshot.bootId;
  json["taken_at"] = snapshot.takenAt;
  json["maps"] = baseName(snapshot.maps);
  json["perf_map"] = snapshot.perfMap.empty() ? "" : baseName(snapshot.perfMap);
  json["perf_map_source"] = snapshot.perfMapSource;
  json["jitdump"] = snapshot.jitdump.empty() ? "" : baseName(snapshot.jitdump);
  json["jitdump_source"] = snapshot.jitdumpSource;
  json["jitdump_descriptors"] = nlohmann::json::array();
  for (const DescriptorAt &d : snapshot.jitdumpDescriptors)
    json["jitdump_descriptors"].push_back({{"fd", d.fd}, {"offset", d.offset}});
  if (llvm::Error err = writeFileAtomically(directory + "/process.json", json.dump(1) + "\n"))
    return err;
  return snapshot;
}

llvm::Expected<Snapshot> readSnapshot(const std::string &directory) {
  const std::string path = directory + "/process.json";
  std::optional<std::string> text = readFile(path);
  if (!text)
    return failure(directory + ": not a jitsym snapshot (no readable process.json; "
                               "'jitsym snapshot PID DIR' writes one)");
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("pid") || !json["pid"].is_number_unsigned())
    return failure(path + ": not a snapshot description (a JSON object with \"pid\")");
  Snapshot snapshot;
  snapshot.directory = directory;
  auto number = [&](const char *key) -> uint64_t {
    return json.contains(key) && json[key].is_number_unsigned() ? json[key].get<uint64_t>() : 0;
  };
  auto stringAt = [&](const char *key) -> std::string {
    return json.contains(key) && json[key].is_string() ? json[key].get<std::string>() : "";
  };
  snapshot.pid = number("pid");
  snapshot.namespacedPid = number("namespaced_pid");
  snapshot.startTime = number("start_time_ticks");
  if (json.contains("uid") && json["uid"].is_number_unsigned())
    snapshot.uid = json["uid"].get<uint32_t>();
  snapshot.executable = stringAt("executable");
  snapshot.commandLine = stringAt("command_line");
  snapshot.bootId = stringAt("boot_id");
  snapshot.takenAt = json.contains("taken_at") && json["taken_at"].is_number_integer()
                         ? json["taken_at"].get<int64_t>()
                         : 0;
  snapshot.perfMapSource = stringAt("perf_map_source");
  snapshot.jitdumpSource = stringAt("jitdump_source");
  // Saved files are named relative to the directory, and must stay in it.
  for (auto [key, out] : {std::pair{"maps", &snapshot.maps},
                          std::pair{"perf_map", &snapshot.perfMap},
                          std::pair{"jitdump", &snapshot.jitdump}}) {
    const std::string name = stringAt(key);
    if (name.empty())
      continue;
    if (name.find('/') != std::string::npos || name == "." || name == "..")
      return failure(path + ": \"" + key + "\" must name a file in the snapshot, not '" +
                     name + "'");
    *out = directory + "/" + name;
  }
  if (json.contains("jitdump_descriptors") && json["jitdump_descriptors"].is_array())
    for (const auto &d : json["jitdump_descriptors"])
      if (d.is_object() && d.contains("fd") && d["fd"].is_number_integer() &&
          d.contains("offset") && d["offset"].is_number_unsigned())
        snapshot.jitdumpDescriptors.push_back({d["fd"].get<int>(), d["offset"].get<uint64_t>()});
  return snapshot;
}

} // namespace jitsym
