// process.json: a snapshot's description written and read as JSON text.
#include "jitsym/formats/SnapshotDescription.h"

#include <nlohmann/json.hpp>

namespace jitsym {
namespace {

llvm::Error failure(const std::string &message) {
  return llvm::createStringError(std::errc::invalid_argument, "%s", message.c_str());
}

std::string baseName(const std::string &path) { return path.substr(path.rfind('/') + 1); }

} // namespace

std::string describeSnapshot(const Snapshot &snapshot) {
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
  // The strings are what /proc gave (a process's arguments, its paths), any
  // bytes: those that are not UTF-8 are written as U+FFFD, which JSON can carry.
  return json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

llvm::Expected<Snapshot> parseSnapshotDescription(std::string_view text,
                                                  const std::string &directory,
                                                  const std::string &path) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
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
  for (auto [key, out] :
       {std::pair{"maps", &snapshot.maps}, std::pair{"perf_map", &snapshot.perfMap},
        std::pair{"jitdump", &snapshot.jitdump}}) {
    const std::string name = stringAt(key);
    if (name.empty())
      continue;
    if (name.find('/') != std::string::npos || name == "." || name == "..")
      return failure(path + ": \"" + key + "\" must name a file in the snapshot, not '" + name +
                     "'");
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
