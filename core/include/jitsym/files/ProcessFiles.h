// What jitsym needs to know about a local process from /proc: its identity, its
// user, its namespaced PID, and where its runtime writes the perf map.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

#include "jitsym/files/EarlierMap.h"
#include "jitsym/formats/MemoryMap.h"

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
// The "btime" of /proc/stat: when the system booted, in seconds since the epoch.
std::optional<uint64_t> parseBootTime(std::string_view procStat);

// Where a descriptor stands (/proc/PID/fdinfo/FD): its file offset and whether
// it was opened to append.
struct DescriptorPosition {
  uint64_t offset = 0;
  bool appends = false;
};
std::optional<DescriptorPosition> parseFdInfo(std::string_view fdinfo);

// Readers over /proc (or `procRoot` in tests).
std::optional<ProcessIdentity> readProcessIdentity(uint64_t pid, const std::string &procRoot = "/proc");
// Field 3 of /proc/PID/stat: R, S, T (stopped, as under a debugger), t, Z...
std::optional<char> parseProcessState(std::string_view procStat);
// The identity of a process that is still running (or stopped): none when it
// is no longer in /proc or is a zombie.
std::optional<ProcessIdentity> readLiveProcessIdentity(uint64_t pid,
                                                       const std::string &procRoot = "/proc");
// Whether the process is gone: no longer in /proc, a zombie (killed while a
// debugger held it stopped: the debugger still shows it stopped), or its PID
// now names another process.
bool processHasEnded(const ProcessIdentity &identity, const std::string &procRoot = "/proc");
std::optional<uid_t> readProcessUid(uint64_t pid, const std::string &procRoot = "/proc");
// The PID inside the process's PID namespace (its PID when not in one).
uint64_t readNamespacedPid(uint64_t pid, const std::string &procRoot = "/proc");
// When the process started, in seconds since the epoch.
std::optional<double> readProcessStartSeconds(uint64_t pid, const std::string &procRoot = "/proc");
std::optional<std::string> readFile(const std::string &path);
// Whether the process's descriptor `fd` refers to the file at `path`.
bool descriptorIsFile(uint64_t pid, int fd, const std::string &path,
                      const std::string &procRoot = "/proc");
std::optional<DescriptorPosition> readDescriptorPosition(uint64_t pid, int fd,
                                                         const std::string &procRoot = "/proc");

// The package an Android app process runs, from its first argument
// ("com.example.app:service" -> "com.example.app"); none for a path.
std::optional<std::string> androidPackage(std::string_view argv0);
// Where simpleperf's convention puts the perf map of process `pid` on Android,
// in its order: an app's data directory (/data/data/PKG/perf-PID.map, when
// `argv0` names a package), then /data/local/tmp/perf-PID.map.
std::vector<std::string> androidPerfMapPaths(uint64_t pid, std::string_view argv0);
// Candidate perf map paths of a process on a remote platform, as paths there:
// /tmp/perf-PID.map and the Android ones, the Android ones first on Android.
std::vector<std::string> remotePerfMapCandidates(uint64_t pid, std::string_view argv0,
                                                 bool android);

// Candidate perf map paths, in the order they are tried: inside the process's
// mount namespace under its namespaced PID (containers), /tmp/perf-PID.map, then
// the Android locations inside its mount namespace.
std::vector<std::string> perfMapCandidates(uint64_t pid, const std::string &procRoot = "/proc");

// The first candidate that exists and was not last written before the process
// started (a map left behind by an earlier process with the same PID), if any.
std::optional<std::string> findPerfMap(uint64_t pid, const std::string &procRoot = "/proc");

struct PerfMapSearch {
  std::optional<std::string> path; // what findPerfMap() finds
  std::optional<EarlierMap> stale; // else the first map an earlier process left
};
PerfMapSearch searchPerfMap(uint64_t pid, const std::string &procRoot = "/proc");


// For a core file of process `pid`: /tmp/perf-PID.map if it was last written
// before the core was (a later one is another process's with the same PID).
std::optional<std::string> findPerfMapOfCore(uint64_t pid, const std::string &corePath);

// Whether `path` names a jitdump of the process, in one of the forms its
// producers use, PID being its PID or its PID inside its PID namespace:
//   jit-PID.dump         perf's rule: V8, HotSpot's and LLVM's perf support,
//                        BEAM, Mono, jitsym's writer and collector
//   jit-TID-PID.dump     JavaScriptCore (Bun: BUN_JSC_useJITDump=1 with
//                        BUN_JSC_jitDumpDirectory); TID its writer thread's
//   jit-TID-PID-XXXXXX   JavaScriptCore without a directory (mkostemp in /tmp)
bool isJitdumpName(std::string_view path, uint64_t pid, uint64_t namespacedPid);
// Whether the process's descriptor `fd` is open on a file so named.
bool descriptorIsJitdump(uint64_t pid, int fd, const std::string &procRoot = "/proc");
// The jitdump a process announced the way perf expects: it maps the file
// executable, and the file is named as above. The path as the process sees it.
std::optional<std::string> jitdumpInMemoryMap(const std::vector<Mapping> &mappings,
                                              uint64_t pid, uint64_t namespacedPid);
// Executable mappings of files that may be a jitdump of another name: the
// first page or few of a file (a producer maps its dump's start), not a
// shared object. Which are is told by their content (isJitdumpOf).
std::vector<std::string> jitdumpCandidatesInMemoryMap(const std::vector<Mapping> &mappings);
// Whether `header` (a file's first bytes) is a jitdump header naming the
// process, by its PID or its PID inside its PID namespace.
bool isJitdumpOf(std::string_view header, uint64_t pid, uint64_t namespacedPid);
// The same for a local process, as a path this process can open (through
// /proc/PID/root for a process in another mount namespace), if it exists: by
// its name, else by its content.
std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                       const std::string &procRoot = "/proc");

// The descriptors of process `pid` open on the file at `path`.
std::vector<int> descriptorsOfFile(uint64_t pid, const std::string &path,
                                   const std::string &procRoot = "/proc");

} // namespace jitsym
