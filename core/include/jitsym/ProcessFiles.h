// What jitsym needs to know about a local process from /proc: its identity, its
// user, its namespaced PID, and where its runtime writes the perf map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace jitsym {

struct ProcessIdentity {
  uint64_t pid = 0;
  uint64_t startTime = 0; // clock ticks since boot (/proc/PID/stat field 22)
  bool operator==(const ProcessIdentity &o) const {
    return pid == o.pid && startTime == o.startTime;
  }
  bool operator!=(const ProcessIdentity &o) const { return !(*this == o); }
};

// Parsers over file contents (pure).
std::optional<uint64_t> parseStartTime(std::string_view procStat);
// Last NStgid value (the PID inside the innermost PID namespace).
std::optional<uint64_t> parseNamespacedPid(std::string_view procStatus);
std::optional<uid_t> parseRealUid(std::string_view procStatus);

// Readers over /proc (or `procRoot` in tests).
std::optional<ProcessIdentity> readProcessIdentity(uint64_t pid, const std::string &procRoot = "/proc");
std::optional<uid_t> readProcessUid(uint64_t pid, const std::string &procRoot = "/proc");
std::optional<std::string> readFile(const std::string &path);

// Candidate perf map paths, in the order they are tried: inside the process's
// mount namespace under its namespaced PID (containers), /tmp/perf-PID.map, then
// the simpleperf locations (Android: /data/local/tmp, /data/data/PKG).
std::vector<std::string> perfMapCandidates(uint64_t pid, const std::string &procRoot = "/proc");

// The first candidate that exists, if any.
std::optional<std::string> findPerfMap(uint64_t pid, const std::string &procRoot = "/proc");

} // namespace jitsym
