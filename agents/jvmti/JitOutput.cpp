#include "JitOutput.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "jitsym/JitdumpWriter.h"

namespace jitsym::jvmti {
namespace {

uint64_t monotonicNanoseconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Asked of the kernel once per thread: the JVM's threads live long.
uint32_t threadId() {
  static thread_local const auto tid = static_cast<uint32_t>(::syscall(SYS_gettid));
  return tid;
}

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

// The bytes in the run of all-zero blocks of `code` that starts at `at`.
size_t zeroRunAt(std::string_view code, size_t at) {
  static const char zeros[JitOutput::kZeroBlockBytes] = {};
  size_t run = 0;
  while (at + run < code.size()) {
    const size_t block = std::min(sizeof zeros, code.size() - at - run);
    if (std::memcmp(code.data() + at + run, zeros, block) != 0)
      break;
    run += block;
  }
  return run;
}

} // namespace

std::unique_ptr<JitOutput> JitOutput::open(const AgentOptions &options, std::string &error) {
  std::string directory = options.directory;
  if (directory.empty()) {
    const char *env = std::getenv("JITDUMPDIR");
    directory = env && *env ? env : "/tmp";
  }
  std::unique_ptr<JitOutput> output(new JitOutput());
  output->pid_ = static_cast<uint32_t>(::getpid());
  const std::string pid = std::to_string(output->pid_);
  File &dump = output->dump_;
  dump.path = directory + "/jit-" + pid + ".dump";
  dump.fd = createFile(dump.path, error);
  if (dump.fd < 0)
    return nullptr;

  std::string header;
  appendJitdumpHeader(header, {kElfMachine, output->pid_, monotonicNanoseconds()});
  if (::write(dump.fd, header.data(), header.size()) != static_cast<ssize_t>(header.size())) {
    error = "cannot write " + dump.path + ": " + std::strerror(errno);
    return nullptr;
  }
  dump.end = header.size();
  output->markerSize_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void *marker = ::mmap(nullptr, output->markerSize_, PROT_READ | PROT_EXEC, MAP_PRIVATE,
                        dump.fd, 0);
  if (marker == MAP_FAILED) {
    error = "cannot map " + dump.path + ": " + std::strerror(errno);
    return nullptr;
  }
  output->marker_ = marker;

  output->live_.reserve(2048); // a JVM's startup brings ~600: no rehash on its path

  if (options.perfMap) {
    output->map_.path = "/tmp/perf-" + pid + ".map";
    output->map_.fd = createFile(output->map_.path, error);
    if (output->map_.fd < 0)
      return nullptr;
  }
  return output;
}

JitOutput::~JitOutput() {
  if (marker_)
    ::munmap(marker_, markerSize_);
  for (int fd : {dump_.fd, map_.fd})
    if (fd >= 0)
      ::close(fd);
}

void JitOutput::commitLocked(File &file) {
  if (!holding_ || file.held.size() >= kHeldBytes)
    flushLocked(file);
}

void JitOutput::flushLocked(File &file) {
  writeLocked(file, file.held, {});
  file.held.clear(); // its capacity is kept for the next records
}

void JitOutput::writeLocked(File &file, std::string_view first, std::string_view second) {
  iovec parts[2] = {{const_cast<char *>(first.data()), first.size()},
                    {const_cast<char *>(second.data()), second.size()}};
  int next = 0;
  while (file.fd >= 0 && next < 2) {
    if (parts[next].iov_len == 0) {
      ++next;
      continue;
    }
    const ssize_t n = ::pwritev(file.fd, parts + next, 2 - next, static_cast<off_t>(file.end));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return failLocked(file, n < 0 ? errno : EIO);
    file.end += static_cast<uint64_t>(n);
    for (auto done = static_cast<size_t>(n); next < 2 && done > 0; ++next) {
      const size_t taken = std::min(done, parts[next].iov_len);
      parts[next].iov_base = static_cast<char *>(parts[next].iov_base) + taken;
      parts[next].iov_len -= taken;
      done -= taken;
      if (parts[next].iov_len > 0)
        break; // a short write inside this part: go on from there
    }
  }
}

void JitOutput::writeCodeLocked(File &file, std::string_view header, std::string_view code) {
  size_t written = 0; // code bytes before this are in the file, or skipped
  for (size_t at = 0; at + kHoleBytes <= code.size();) { // where a hole could start
    const size_t zeros = zeroRunAt(code, at);
    if (zeros < kHoleBytes) {
      at += zeros + kZeroBlockBytes; // past the block that is not all zeros
      continue;
    }
    writeLocked(file, header, code.substr(written, at - written));
    header = {};
    skipLocked(file, zeros);
    at += zeros;
    written = at;
  }
  if (written < code.size() || !header.empty())
    writeLocked(file, header, code.substr(written));
}

void JitOutput::skipLocked(File &file, uint64_t bytes) {
  if (file.fd < 0)
    return;
  // The file's size moves now, so that a record ending in a hole is whole.
  if (::ftruncate(file.fd, static_cast<off_t>(file.end + bytes)) != 0)
    return failLocked(file, errno);
  file.end += bytes;
}

void JitOutput::failLocked(File &file, int error) {
  std::fprintf(stderr, "jitsym-jvmti: cannot write %s: %s; no more records go to it\n",
               file.path.c_str(), std::strerror(error));
  // A partial record at the end is what readers already expect of a writer
  // that stopped: they wait for the rest and read nothing wrong.
  ::close(file.fd);
  file.fd = -1;
}

void JitOutput::holdWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = true;
  dump_.held.reserve(kHeldBytes + kCopiedCodeBytes); // no copies while it grows
}

void JitOutput::releaseWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  holding_ = false;
  flushLocked(dump_);
  flushLocked(map_);
}

void JitOutput::load(const void *owner, uint64_t address, uint64_t size, std::string_view name,
                     const std::vector<DebugLineFields> &lines) {
  const uint32_t tid = threadId();
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
  const std::string_view code(reinterpret_cast<const char *>(address), size);
  if (!lines.empty())
    appendDebugInfo(dump_.held, now, address, lines);
  appendCodeLoadHeader(dump_.held, now, {pid_, tid, address, index, name, code});
  if (holding_ && code.size() <= kCopiedCodeBytes) {
    dump_.held += code;
    commitLocked(dump_);
  } else { // the code bytes go from the code to the file, in the same write
    writeCodeLocked(dump_, dump_.held, code);
    dump_.held.clear();
  }
  if (map_.fd >= 0) {
    map_.held += perfMapLine(address, size, name);
    commitLocked(map_);
  }
  live_[address] = {owner, size, index};
}

void JitOutput::unload(const void *owner, uint64_t address) {
  const uint32_t tid = threadId();
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = live_.find(address);
  if (closed_ || found == live_.end() || found->second.owner != owner)
    return; // newer code took the range already: its CODE_LOAD stands
  appendCodeUnload(dump_.held, monotonicNanoseconds(),
                   {pid_, tid, address, found->second.size, found->second.index});
  commitLocked(dump_);
  live_.erase(found);
}

void JitOutput::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  appendCodeClose(dump_.held, monotonicNanoseconds());
  flushLocked(dump_);
  flushLocked(map_);
  closed_ = true;
}

} // namespace jitsym::jvmti
