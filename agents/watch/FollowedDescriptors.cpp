// The write filter's followed descriptors (FollowedDescriptors.h).
#include "FollowedDescriptors.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string_view>

extern "C" std::atomic<uint32_t> jitsym_filter_generation; // WriteFilter.cpp

namespace {

constexpr int kKnownDescriptors = 4096;
std::atomic<int8_t> kinds[kKnownDescriptors];

// The runtime's own files are named after its PID: perf-PID.map, jit-PID.dump.
Kind kindOfPath(int fd) {
  char link[32], path[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0)
    return Other;
  const std::string_view file(path, static_cast<size_t>(length));
  const std::string_view base = file.substr(file.rfind('/') + 1);
  char pid[16];
  const int digits = std::snprintf(pid, sizeof pid, "%d", static_cast<int>(getpid()));
  auto named = [&](std::string_view prefix, std::string_view suffix) {
    return base.size() == prefix.size() + digits + suffix.size() &&
           base.substr(0, prefix.size()) == prefix &&
           base.substr(prefix.size(), digits) == std::string_view(pid, digits) &&
           base.substr(prefix.size() + digits) == suffix;
  };
  return named("perf-", ".map") ? PerfMap : named("jit-", ".dump") ? Jitdump : Other;
}

} // namespace

Kind kindOf(int fd) {
  if (jitsym_filter_generation.load(std::memory_order_relaxed) == 0 || fd < 0)
    return Other;
  if (fd >= kKnownDescriptors)
    return kindOfPath(fd);
  Kind kind = static_cast<Kind>(kinds[fd].load(std::memory_order_relaxed));
  if (kind == Unknown) {
    kind = kindOfPath(fd);
    kinds[fd].store(kind, std::memory_order_relaxed);
  }
  return kind;
}

bool forgetKind(int fd) {
  return fd >= 0 && fd < kKnownDescriptors &&
         kinds[fd].exchange(Unknown, std::memory_order_relaxed) > Other;
}
