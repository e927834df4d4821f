#include "ThisProcess.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "jitsym/arch/Architecture.h"

namespace jitsym::writer {
namespace {

// When this process started, in seconds since the epoch; 0 if unknown. From
// /proc/self/stat's start time (clock ticks after boot) and /proc/stat's btime.
time_t processStartSeconds() {
  char text[1024] = {};
  FILE *stat = std::fopen("/proc/self/stat", "re");
  if (!stat)
    return 0;
  const size_t n = std::fread(text, 1, sizeof text - 1, stat);
  std::fclose(stat);
  text[n] = '\0';
  const char *after = std::strrchr(text, ')'); // the command name may hold spaces
  unsigned long long ticks = 0;
  // Fields 3..22 follow the name; the start time is field 22.
  if (!after || std::sscanf(after + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
                                       "%*d %*d %*d %*d %*d %*d %llu", &ticks) != 1)
    return 0;
  FILE *system = std::fopen("/proc/stat", "re");
  if (!system)
    return 0;
  char line[256];
  long long boot = 0;
  while (std::fgets(line, sizeof line, system) && std::sscanf(line, "btime %lld", &boot) != 1) {
  }
  std::fclose(system);
  const long perSecond = ::sysconf(_SC_CLK_TCK);
  return boot > 0 && perSecond > 0 ? static_cast<time_t>(boot + ticks / perSecond) : 0;
}

} // namespace

namespace {

// Whether the byte at `address` can be read: 1 when it can, 0 when it cannot,
// -1 when the kernel cannot be asked (process_vm_readv refused or missing).
int byteReadable(uint64_t address) {
  char byte;
  iovec local{&byte, 1};
  iovec remote{reinterpret_cast<void *>(address), 1};
  const ssize_t n = ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
  if (n == 1)
    return 1;
  return errno == EFAULT ? 0 : -1;
}

} // namespace

uint64_t readableLength(const void *address, uint64_t size) {
  if (size == 0)
    return 0;
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t start = reinterpret_cast<uint64_t>(address);
  const uint64_t last = start + size - 1;
  if (last < start)
    return 0;
  const int end = byteReadable(last);
  if (end != 0)
    return size; // readable, or the kernel cannot be asked: as before
  if (byteReadable(start) != 1)
    return 0;
  // The first unreadable page, by halves: [good, bad) pages from the start's.
  uint64_t good = start / page, bad = last / page;
  while (bad - good > 1) {
    const uint64_t mid = good + (bad - good) / 2;
    if (byteReadable(mid * page) == 1)
      good = mid;
    else
      bad = mid;
  }
  return bad * page - start;
}

uint64_t monotonicNanoseconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

namespace {
// Bumped in a forked child, whose one thread has a new id.
unsigned forkGeneration = 0;
} // namespace

uint32_t threadId() {
  static thread_local struct {
    unsigned generation = ~0u;
    uint32_t tid = 0;
  } cached;
  if (cached.generation != forkGeneration) {
    cached.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
    cached.generation = forkGeneration;
  }
  return cached.tid;
}

void forgetThreadIdsAfterFork() { ++forkGeneration; }

uint32_t elfMachine() { return hostArchitecture().elfMachine; }

bool writtenBeforeThisProcess(int fd) {
  struct stat status {};
  const time_t started = processStartSeconds();
  // Whole seconds on both sides: a file of the same second is kept.
  return started > 0 && ::fstat(fd, &status) == 0 && status.st_mtime < started;
}

} // namespace jitsym::writer
