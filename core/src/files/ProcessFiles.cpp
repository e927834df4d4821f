// /proc readers for process identity and perf map discovery.
#include "jitsym/files/ProcessFiles.h"

#include "jitsym/files/AppendedFile.h"
#include "jitsym/formats/JitdumpParser.h"


#include <algorithm>
#include <charconv>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

namespace jitsym {
namespace {

// A number that is the whole of `text`: "42abc" is not 42 (a file named
// jit-42abc.dump is not process 42's jitdump).
std::optional<uint64_t> toNumber(std::string_view text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data() || ptr != text.data() + text.size())
    return std::nullopt;
  return value;
}

// The value part of a "Key:\tvalue" line of /proc/PID/status.
std::optional<std::string_view> statusField(std::string_view status, std::string_view key) {
  size_t pos = 0;
  while (pos < status.size()) {
    size_t nl = status.find('\n', pos);
    std::string_view line = status.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key &&
        line[key.size()] == ':')
      return line.substr(key.size() + 1);
    if (nl == std::string_view::npos)
      break;
    pos = nl + 1;
  }
  return std::nullopt;
}

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t')
      ++i;
    if (i > start)
      out.push_back(text.substr(start, i - start));
  }
  return out;
}

// A map written this long before the process's recorded start still counts
// as its own (the boot time in /proc/stat has a resolution of 1 s).
constexpr double kStartTimeSlack = 2.0;

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

} // namespace

std::optional<uint64_t> parseStartTime(std::string_view stat) {
  // The command name (field 2) may contain spaces and parentheses: skip to the
  // last ')' and count fields from there (field 3 is the state).
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos)
    return std::nullopt;
  std::vector<std::string_view> fields = words(stat.substr(close + 1));
  constexpr size_t kStartTimeAfterComm = 22 - 3;
  if (fields.size() <= kStartTimeAfterComm)
    return std::nullopt;
  return toNumber(fields[kStartTimeAfterComm]);
}

std::optional<char> parseProcessState(std::string_view stat) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos)
    return std::nullopt;
  std::vector<std::string_view> fields = words(stat.substr(close + 1));
  if (fields.empty() || fields[0].size() != 1)
    return std::nullopt;
  return fields[0][0];
}

std::optional<uint64_t> parseNamespacedPid(std::string_view status) {
  auto field = statusField(status, "NStgid");
  if (!field)
    return std::nullopt;
  std::vector<std::string_view> ids = words(*field);
  if (ids.empty())
    return std::nullopt;
  return toNumber(ids.back());
}

std::optional<uid_t> parseRealUid(std::string_view status) {
  auto field = statusField(status, "Uid");
  if (!field)
    return std::nullopt;
  std::vector<std::string_view> ids = words(*field);
  if (ids.empty())
    return std::nullopt;
  auto uid = toNumber(ids.front());
  if (!uid)
    return std::nullopt;
  return static_cast<uid_t>(*uid);
}

std::optional<DescriptorPosition> parseFdInfo(std::string_view fdinfo) {
  std::optional<std::string_view> pos = statusField(fdinfo, "pos");
  std::optional<std::string_view> flags = statusField(fdinfo, "flags");
  if (!pos || !flags)
    return std::nullopt;
  std::vector<std::string_view> posWords = words(*pos), flagWords = words(*flags);
  if (posWords.size() != 1 || flagWords.size() != 1)
    return std::nullopt;
  std::optional<uint64_t> offset = toNumber(posWords[0]);
  uint64_t flagBits = 0;
  std::string_view octal = flagWords[0];
  auto [ptr, ec] = std::from_chars(octal.data(), octal.data() + octal.size(), flagBits, 8);
  if (!offset || ec != std::errc() || ptr != octal.data() + octal.size())
    return std::nullopt;
  return DescriptorPosition{*offset, (flagBits & O_APPEND) != 0};
}

bool descriptorIsFile(uint64_t pid, int fd, const std::string &path,
                      const std::string &procRoot) {
  if (fd < 0)
    return false;
  struct stat viaDescriptor, viaPath;
  const std::string link = procRoot + "/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  return ::stat(link.c_str(), &viaDescriptor) == 0 && ::stat(path.c_str(), &viaPath) == 0 &&
         viaDescriptor.st_dev == viaPath.st_dev && viaDescriptor.st_ino == viaPath.st_ino;
}

std::optional<DescriptorPosition> readDescriptorPosition(uint64_t pid, int fd,
                                                         const std::string &procRoot) {
  auto text = readFile(procRoot + "/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
  return text ? parseFdInfo(*text) : std::nullopt;
}

std::optional<std::string> readFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  std::string data;
  char buffer[65536];
  for (;;) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n <= 0)
      break;
    data.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

std::optional<ProcessIdentity> readProcessIdentity(uint64_t pid, const std::string &procRoot) {
  auto stat = readFile(procRoot + "/" + std::to_string(pid) + "/stat");
  if (!stat)
    return std::nullopt;
  auto start = parseStartTime(*stat);
  if (!start)
    return std::nullopt;
  return ProcessIdentity{pid, *start};
}

std::optional<ProcessIdentity> readLiveProcessIdentity(uint64_t pid, const std::string &procRoot) {
  auto stat = readFile(procRoot + "/" + std::to_string(pid) + "/stat");
  if (!stat)
    return std::nullopt;
  std::optional<char> state = parseProcessState(*stat);
  std::optional<uint64_t> start = parseStartTime(*stat);
  if (!state || *state == 'Z' || *state == 'X' || !start)
    return std::nullopt;
  return ProcessIdentity{pid, *start};
}

bool processHasEnded(const ProcessIdentity &identity, const std::string &procRoot) {
  std::optional<ProcessIdentity> live = readLiveProcessIdentity(identity.pid, procRoot);
  return !live || *live != identity;
}

std::optional<uid_t> readProcessUid(uint64_t pid, const std::string &procRoot) {
  auto status = readFile(procRoot + "/" + std::to_string(pid) + "/status");
  if (!status)
    return std::nullopt;
  return parseRealUid(*status);
}

uint64_t readNamespacedPid(uint64_t pid, const std::string &procRoot) {
  if (auto status = readFile(procRoot + "/" + std::to_string(pid) + "/status"))
    if (auto inner = parseNamespacedPid(*status))
      return *inner;
  return pid;
}

std::optional<std::string> androidPackage(std::string_view argv0) {
  // Android apps are named by package ("com.example.app:service").
  std::string_view package = argv0.substr(0, argv0.find('\0'));
  package = package.substr(0, package.find(':'));
  if (package.empty() || package.find('/') != std::string_view::npos)
    return std::nullopt;
  return std::string(package);
}

std::vector<std::string> androidPerfMapPaths(uint64_t pid, std::string_view argv0) {
  const std::string name = "perf-" + std::to_string(pid) + ".map";
  std::vector<std::string> paths;
  if (std::optional<std::string> package = androidPackage(argv0))
    paths.push_back("/data/data/" + *package + "/" + name);
  paths.push_back("/data/local/tmp/" + name);
  return paths;
}

std::vector<std::string> remotePerfMapCandidates(uint64_t pid, std::string_view argv0,
                                                 bool android) {
  std::vector<std::string> candidates = androidPerfMapPaths(pid, argv0);
  const std::string tmp = "/tmp/perf-" + std::to_string(pid) + ".map";
  candidates.insert(android ? candidates.end() : candidates.begin(), tmp);
  return candidates;
}

std::vector<std::string> perfMapCandidates(uint64_t pid, const std::string &procRoot) {
  const std::string root = procRoot + "/" + std::to_string(pid) + "/root";
  const uint64_t nspid = readNamespacedPid(pid, procRoot);
  // The process's own view of /tmp: right for containers and private /tmp.
  std::vector<std::string> candidates = {root + "/tmp/perf-" + std::to_string(nspid) + ".map",
                                         "/tmp/perf-" + std::to_string(pid) + ".map"};
  const std::string cmdline =
      readFile(procRoot + "/" + std::to_string(pid) + "/cmdline").value_or("");
  for (const std::string &path : androidPerfMapPaths(nspid, cmdline))
    candidates.push_back(root + path);
  return candidates;
}

std::optional<uint64_t> parseBootTime(std::string_view procStat) {
  for (size_t pos = 0; pos < procStat.size();) {
    const size_t nl = std::min(procStat.find('\n', pos), procStat.size());
    std::vector<std::string_view> fields = words(procStat.substr(pos, nl - pos));
    if (fields.size() == 2 && fields[0] == "btime")
      return toNumber(fields[1]);
    pos = nl + 1;
  }
  return std::nullopt;
}

// When this machine booted, in seconds since the epoch: from the clocks, to the
// microsecond. /proc/stat's btime is cut to whole seconds, which moved start
// times up to a second early and let a map written 2.5 s before a process
// started pass for the process's own.
static std::optional<double> bootSecondsFromClocks() {
  struct timespec now, sinceBoot;
  if (::clock_gettime(CLOCK_REALTIME, &now) != 0 ||
      ::clock_gettime(CLOCK_BOOTTIME, &sinceBoot) != 0)
    return std::nullopt;
  return double(now.tv_sec - sinceBoot.tv_sec) + double(now.tv_nsec - sinceBoot.tv_nsec) / 1e9;
}

std::optional<double> readProcessStartSeconds(uint64_t pid, const std::string &procRoot) {
  std::optional<ProcessIdentity> identity = readProcessIdentity(pid, procRoot);
  std::optional<double> boot;
  if (procRoot == "/proc") {
    boot = bootSecondsFromClocks();
  } else if (std::optional<std::string> stat = readFile(procRoot + "/stat")) {
    if (std::optional<uint64_t> seconds = parseBootTime(*stat))
      boot = double(*seconds); // another machine's /proc (tests): its btime
  }
  const long ticksPerSecond = ::sysconf(_SC_CLK_TCK);
  if (!identity || !boot || ticksPerSecond <= 0)
    return std::nullopt;
  return *boot + double(identity->startTime) / double(ticksPerSecond);
}

PerfMapSearch searchPerfMap(uint64_t pid, const std::string &procRoot) {
  PerfMapSearch search;
  const std::optional<double> started = readProcessStartSeconds(pid, procRoot);
  for (const std::string &candidate : perfMapCandidates(pid, procRoot)) {
    struct stat st; // of a link itself: the reader refuses links, with a message
    if (::lstat(candidate.c_str(), &st) != 0)
      continue;
    // Last written before the process started: a map an earlier process with
    // the same PID left behind.
    const double written = double(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
    if (started && written < *started - kStartTimeSlack) {
      if (!search.stale)
        search.stale = earlierMap(candidate);
      continue;
    }
    search.path = candidate;
    break;
  }
  return search;
}

std::optional<std::string> findPerfMap(uint64_t pid, const std::string &procRoot) {
  return searchPerfMap(pid, procRoot).path;
}

std::optional<std::string> findPerfMapOfCore(uint64_t pid, const std::string &corePath) {
  const std::string path = "/tmp/perf-" + std::to_string(pid) + ".map";
  struct stat map, core;
  if (::stat(path.c_str(), &map) != 0 || ::stat(corePath.c_str(), &core) != 0)
    return std::nullopt;
  if (map.st_mtim.tv_sec > core.st_mtim.tv_sec + 1)
    return std::nullopt;
  return path;
}

bool isJitdumpName(std::string_view path, uint64_t pid, uint64_t namespacedPid) {
  const size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  constexpr std::string_view kPrefix = "jit-", kSuffix = ".dump";
  if (name.substr(0, kPrefix.size()) != kPrefix)
    return false;
  name.remove_prefix(kPrefix.size());
  // The PID as perf and the runtimes spell it ("jit-%d.dump"): jit-0123.dump
  // is another file than process 123's.
  auto isPid = [&](std::string_view digits) {
    return digits == std::to_string(pid) || digits == std::to_string(namespacedPid);
  };
  auto isNumber = [](std::string_view digits) {
    return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const bool dotDump = name.size() > kSuffix.size() &&
                       name.substr(name.size() - kSuffix.size()) == kSuffix;
  if (dotDump) {
    const std::string_view numbers = name.substr(0, name.size() - kSuffix.size());
    if (isPid(numbers))
      return true; // jit-PID.dump
    const size_t dash = numbers.find('-');
    return dash != std::string_view::npos && isNumber(numbers.substr(0, dash)) &&
           isPid(numbers.substr(dash + 1)); // jit-TID-PID.dump
  }
  // jit-TID-PID-XXXXXX: mkostemp's six characters.
  const size_t first = name.find('-');
  const size_t second = first == std::string_view::npos ? first : name.find('-', first + 1);
  return second != std::string_view::npos && isNumber(name.substr(0, first)) &&
         isPid(name.substr(first + 1, second - first - 1)) && name.size() - second - 1 == 6;
}

std::optional<std::string> jitdumpInMemoryMap(const std::vector<Mapping> &mappings,
                                              uint64_t pid, uint64_t namespacedPid) {
  for (const Mapping &m : mappings)
    if (m.execute && !m.path.empty() && m.path[0] == '/' &&
        isJitdumpName(m.path, pid, namespacedPid))
      return m.path;
  return std::nullopt;
}

std::vector<std::string> jitdumpCandidatesInMemoryMap(const std::vector<Mapping> &mappings) {
  // Producers map their dump's first page (perf needs no more); a library's
  // code is a larger mapping at an offset.
  constexpr uint64_t kMaxMarkerMapping = 64u << 10;
  std::vector<std::string> candidates;
  for (const Mapping &m : mappings)
    if (m.execute && m.offset == 0 && m.end - m.start <= kMaxMarkerMapping && !m.path.empty() &&
        m.path[0] == '/' && m.path.find(".so") == std::string::npos &&
        std::find(candidates.begin(), candidates.end(), m.path) == candidates.end())
      candidates.push_back(m.path);
  return candidates;
}

bool isJitdumpOf(std::string_view header, uint64_t pid, uint64_t namespacedPid) {
  std::string error;
  const std::optional<JitdumpHeader> parsed = parseJitdumpHeader(header, error);
  return parsed && (parsed->pid == pid || parsed->pid == namespacedPid);
}

bool descriptorIsJitdump(uint64_t pid, int fd, const std::string &procRoot) {
  if (fd < 0)
    return false;
  const std::string link = procRoot + "/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  char target[4096];
  const ssize_t length = ::readlink(link.c_str(), target, sizeof(target));
  if (length <= 0 || static_cast<size_t>(length) >= sizeof(target))
    return false;
  return isJitdumpName(std::string_view(target, static_cast<size_t>(length)), pid,
                       readNamespacedPid(pid, procRoot));
}

std::optional<std::string> findJitdump(uint64_t pid, const std::vector<Mapping> &mappings,
                                       const std::string &procRoot) {
  // The process's own view first: right for containers and private /tmp.
  auto openable = [&](const std::string &path) -> std::optional<std::string> {
    const std::string viaRoot = procRoot + "/" + std::to_string(pid) + "/root" + path;
    if (exists(viaRoot))
      return viaRoot;
    if (exists(path))
      return path;
    return std::nullopt;
  };
  const uint64_t namespacedPid = readNamespacedPid(pid, procRoot);
  if (std::optional<std::string> path = jitdumpInMemoryMap(mappings, pid, namespacedPid))
    return openable(*path);
  for (const std::string &candidate : jitdumpCandidatesInMemoryMap(mappings)) {
    const std::optional<std::string> path = openable(candidate);
    if (!path)
      continue;
    std::string header;
    const int fd = ::open(path->c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
      continue;
    const bool read = preadExact(fd, 0, kJitdumpHeaderSize, header);
    ::close(fd);
    if (read && isJitdumpOf(header, pid, namespacedPid))
      return path;
  }
  return std::nullopt;
}

std::vector<int> descriptorsOfFile(uint64_t pid, const std::string &path,
                                   const std::string &procRoot) {
  std::vector<int> descriptors;
  const std::string dir = procRoot + "/" + std::to_string(pid) + "/fd";
  DIR *listing = ::opendir(dir.c_str());
  if (!listing)
    return descriptors;
  while (const dirent *entry = ::readdir(listing)) {
    std::optional<uint64_t> fd = toNumber(entry->d_name);
    if (fd && *fd <= INT32_MAX && descriptorIsFile(pid, static_cast<int>(*fd), path, procRoot))
      descriptors.push_back(static_cast<int>(*fd));
  }
  ::closedir(listing);
  return descriptors;
}

} // namespace jitsym
