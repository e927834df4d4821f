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

// Pages asked about per process_vm_readv call: one byte of each, 1 MiB of
// 4 KiB pages in one call, a 4 KiB array of iovecs on the stack.
constexpr size_t kPagesPerCall = 256;

} // namespace

// Page by page from the start, never by halves: the range may run through
// several mappings with holes between (HotSpot's replay reported a stub
// from its code heap to the top of the address space: the heap's committed
// end, an unmapped gap, then libraries and stacks that read fine), so no
// page but the first unreadable one says where reading stops. One byte of
// each page is one remote iovec; the kernel stops at the first it cannot
// read and returns how many it did, so a call tells how many of its pages
// lead readable.
uint64_t readableLength(const void *address, uint64_t size) {
  if (size == 0)
    return 0;
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t start = reinterpret_cast<uint64_t>(address);
  const uint64_t last = start + size - 1;
  if (last < start)
    return 0;
  char bytes[kPagesPerCall];
  iovec remote[kPagesPerCall];
  uint64_t probe = start; // the start, then each later page's first byte
  for (;;) {
    size_t count = 0;
    bool more = true;
    while (count < kPagesPerCall) {
      remote[count++] = {reinterpret_cast<void *>(probe), 1};
      const uint64_t following = (probe / page + 1) * page;
      if (following == 0 || following > last) { // 0: the top of the address space
        more = false;
        break;
      }
      probe = following;
    }
    iovec local{bytes, count};
    const ssize_t n = ::process_vm_readv(::getpid(), &local, 1, remote, count, 0);
    if (n < 0 && errno != EFAULT)
      return size; // the kernel cannot be asked (seccomp, no such call): as before
    const size_t readable = n < 0 ? 0 : static_cast<size_t>(n);
    if (readable < count)
      return reinterpret_cast<uint64_t>(remote[readable].iov_base) - start;
    if (!more)
      return size;
  }
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
