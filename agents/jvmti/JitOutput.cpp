#include "JitOutput.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "jitsym/JitdumpWriter.h"

namespace jitsym::jvmti {
namespace {

uint64_t monotonicNanoseconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

uint32_t threadId() { return static_cast<uint32_t>(::syscall(SYS_gettid)); }

constexpr uint32_t kElfMachine =
#if defined(__x86_64__)
    62; // EM_X86_64
#elif defined(__aarch64__)
    183; // EM_AARCH64
#else
#error "jitsym-jvmti: add this architecture's ELF e_machine"
#endif

// A file of ours, replacing any left by an earlier process with this PID.
// O_NOFOLLOW: in /tmp, a link planted there is refused, not written through.
int createFile(const std::string &path, std::string &error) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    error = "cannot create " + path + ": " + std::strerror(errno);
  return fd;
}

} // namespace

std::unique_ptr<JitOutput> JitOutput::open(const AgentOptions &options, std::string &error) {
  std::string directory = options.directory;
  if (directory.empty()) {
    const char *env = std::getenv("JITDUMPDIR");
    directory = env && *env ? env : "/tmp";
  }
  const std::string pid = std::to_string(::getpid());
  std::unique_ptr<JitOutput> output(new JitOutput());
  output->dumpPath_ = directory + "/jit-" + pid + ".dump";
  output->dumpFd_ = createFile(output->dumpPath_, error);
  if (output->dumpFd_ < 0)
    return nullptr;

  std::string header;
  appendJitdumpHeader(header, {kElfMachine, static_cast<uint32_t>(::getpid()),
                               monotonicNanoseconds()});
  if (::write(output->dumpFd_, header.data(), header.size()) !=
      static_cast<ssize_t>(header.size())) {
    error = "cannot write " + output->dumpPath_ + ": " + std::strerror(errno);
    return nullptr;
  }
  output->markerSize_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void *marker = ::mmap(nullptr, output->markerSize_, PROT_READ | PROT_EXEC, MAP_PRIVATE,
                        output->dumpFd_, 0);
  if (marker == MAP_FAILED) {
    error = "cannot map " + output->dumpPath_ + ": " + std::strerror(errno);
    return nullptr;
  }
  output->marker_ = marker;

  if (options.perfMap) {
    output->mapPath_ = "/tmp/perf-" + pid + ".map";
    output->mapFd_ = createFile(output->mapPath_, error);
    if (output->mapFd_ < 0)
      return nullptr;
  }
  return output;
}

JitOutput::~JitOutput() {
  if (marker_)
    ::munmap(marker_, markerSize_);
  for (int fd : {dumpFd_, mapFd_})
    if (fd >= 0)
      ::close(fd);
}

void JitOutput::writeLocked(int &fd, const std::string &path, const std::string &bytes) {
  size_t done = 0;
  while (fd >= 0 && done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && errno != EINTR) {
      std::fprintf(stderr, "jitsym-jvmti: cannot write %s: %s; no more records go to it\n",
                   path.c_str(), std::strerror(errno));
      // A partial record at the end is what readers already expect of a
      // writer that stopped: they wait for the rest and read nothing wrong.
      ::close(fd);
      fd = -1;
    }
  }
}

void JitOutput::load(const void *owner, uint64_t address, uint64_t size, std::string_view name,
                     const std::vector<DebugLineFields> &lines) {
  const uint32_t tid = threadId();
  std::string records;
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  if (!owner) { // a stub replayed by GenerateEvents that is in the dump already
    auto known = live_.find(address);
    if (known != live_.end() && !known->second.owner && known->second.size == size)
      return;
  }
  const uint64_t index = nextIndex_++;
  const uint64_t now = monotonicNanoseconds();
  if (!lines.empty())
    appendDebugInfo(records, now, address, lines);
  appendCodeLoad(records, now,
                 {static_cast<uint32_t>(::getpid()), tid, address, index, name,
                  std::string_view(reinterpret_cast<const char *>(address), size)});
  writeLocked(dumpFd_, dumpPath_, records);
  if (mapFd_ >= 0)
    writeLocked(mapFd_, mapPath_, perfMapLine(address, size, name));
  live_[address] = {owner, size, index};
}

void JitOutput::unload(const void *owner, uint64_t address) {
  const uint32_t tid = threadId();
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = live_.find(address);
  if (closed_ || found == live_.end() || found->second.owner != owner)
    return; // newer code took the range already: its CODE_LOAD stands
  std::string record;
  appendCodeUnload(record, monotonicNanoseconds(),
                   {static_cast<uint32_t>(::getpid()), tid, address, found->second.size,
                    found->second.index});
  writeLocked(dumpFd_, dumpPath_, record);
  live_.erase(found);
}

void JitOutput::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  std::string record;
  appendCodeClose(record, monotonicNanoseconds());
  writeLocked(dumpFd_, dumpPath_, record);
  closed_ = true;
}

} // namespace jitsym::jvmti
