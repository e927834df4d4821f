#include "jitsym/writer/JitdumpProducer.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

#include "RecordFile.h"
#include "ThisProcess.h"
#include "jitsym-writer.h"
#include "jitsym/writer/DebuggerHook.h"
#include "jitsym/formats/JitdumpParser.h"

namespace jitsym::writer {

JitdumpProducer::JitdumpProducer() : file_(new RecordFile()) {
  live_.reserve(2048); // a JVM's startup brings ~600: no rehash on its path
  watchForks(this);
}

JitdumpProducer::~JitdumpProducer() {
  unwatchForks(this);
  unmapMarker();
  delete file_;
  if (parentFd_ >= 0)
    ::close(parentFd_);
}

void JitdumpProducer::unmapMarker() {
  if (marker_)
    ::munmap(marker_, markerSize_);
  marker_ = nullptr;
}

int JitdumpProducer::open(const std::string &directory, std::string *error) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (file_->isOpen())
    return JITSYM_OK;
  closed_ = false;
  return openLocked(directory, error);
}

int JitdumpProducer::openLocked(const std::string &directory, std::string *error) {
  directory_ = directory;
  if (directory_.empty()) {
    const char *env = std::getenv("JITDUMPDIR");
    directory_ = env && *env ? env : "/tmp";
  }
  pid_ = static_cast<uint32_t>(::getpid());
  std::string why;
  auto failed = [&] {
    const int code = errno;
    if (error)
      *error = why;
    file_->close();
    errno = code;
    return JITSYM_ERR_OPEN;
  };
  const std::string path = directory_ + "/jit-" + std::to_string(pid_) + ".dump";
  if (!file_->open(path, RecordFile::Mode::Positioned, why))
    return failed();
  std::string header;
  appendJitdumpHeader(header, {elfMachine(), pid_, monotonicNanoseconds()});
  file_->write(header);
  if (file_->result() != JITSYM_OK) {
    why = "cannot write " + path + ": " + std::strerror(errno);
    return failed();
  }
  unmapMarker(); // a forked child's: the parent's dump
  markerSize_ = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void *marker = ::mmap(nullptr, markerSize_, PROT_READ | PROT_EXEC, MAP_PRIVATE, file_->fd(), 0);
  if (marker == MAP_FAILED) {
    why = "cannot map " + path + ": " + std::strerror(errno);
    return failed();
  }
  marker_ = marker;
  if (parentFd_ >= 0) { // a forked child: the parent's code is ours too
    file_->copyFrom(parentFd_, kJitdumpHeaderSize, parentEnd_);
    ::close(parentFd_);
    parentFd_ = -1;
  }
  return JITSYM_OK;
}

int JitdumpProducer::writableLocked() {
  if (closed_) {
    errno = EBADF;
    return JITSYM_ERR_CLOSED;
  }
  if (const int result = file_->result(); result != JITSYM_OK)
    return result;
  return file_->isOpen() ? JITSYM_OK : openLocked(directory_, nullptr);
}

int JitdumpProducer::load(uint64_t address, uint64_t size, std::string_view name,
                          const std::vector<DebugLineFields> &lines, const void *owner,
                          uint64_t entry) {
  const uint32_t tid = threadId();
  std::lock_guard<std::mutex> lock(mutex_);
  if (const int writable = writableLocked(); writable != JITSYM_OK)
    return writable;
  // Only code this process can read is written (readableLength): a runtime
  // that reports a range past its readable memory gets the readable part.
  const uint64_t readable = readableLength(reinterpret_cast<const void *>(address), size);
  if (readable == 0) {
    errno = EFAULT;
    return JITSYM_ERR_ARG;
  }
  size = readable;
  const uint64_t index = nextIndex_++;
  const uint64_t now = monotonicNanoseconds();
  const std::string_view code(reinterpret_cast<const char *>(address), size);
  std::string &held = file_->held();
  if (!lines.empty())
    appendDebugInfo(held, now, address, lines);
  if (entry > address && entry < address + size)
    appendCodeEntry(held, now, pid_, tid, address, entry);
  appendCodeLoadHeader(held, now, {pid_, tid, address, index, name, code});
  file_->wanted(debuggerWants(name, address, size));
  if (file_->holding() && code.size() <= kCopiedCodeBytes) {
    held += code;
    file_->commit();
  } else { // the code bytes go from the code to the file, in the same write
    file_->writeWithCode(code);
  }
  live_[address] = {owner, size, index};
  return file_->result();
}

int JitdumpProducer::unload(uint64_t address, std::optional<const void *> owner) {
  const uint32_t tid = threadId();
  std::lock_guard<std::mutex> lock(mutex_);
  if (const int writable = writableLocked(); writable != JITSYM_OK)
    return writable;
  auto found = live_.find(address);
  if (found == live_.end() || (owner && found->second.owner != *owner)) {
    errno = ENOENT;
    return JITSYM_ERR_UNKNOWN;
  }
  appendCodeUnload(file_->held(), monotonicNanoseconds(),
                   {pid_, tid, address, found->second.size, found->second.index});
  file_->wanted(debuggerWants({}, address, found->second.size));
  file_->commit();
  live_.erase(found);
  return file_->result();
}

bool JitdumpProducer::holds(uint64_t address, uint64_t size, const void *owner) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = live_.find(address);
  return found != live_.end() && found->second.size == size && found->second.owner == owner;
}

void JitdumpProducer::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  closed_ = true;
  if (!file_->isOpen())
    return;
  appendCodeClose(file_->held(), monotonicNanoseconds());
  file_->flush();
  file_->close();
  unmapMarker();
  live_.clear();
}

void JitdumpProducer::holdWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_->setHolding(true);
}

void JitdumpProducer::releaseWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_->setHolding(false);
}

std::string JitdumpProducer::path() {
  std::lock_guard<std::mutex> lock(mutex_);
  return file_->path();
}

void JitdumpProducer::beforeFork() {
  mutex_.lock();
  file_->flush(); // held records belong to the parent's dump, and the child's copy
  parentEnd_ = file_->end();
}

void JitdumpProducer::afterForkInParent() { mutex_.unlock(); }

void JitdumpProducer::afterForkInChild() {
  if (file_->isOpen()) {
    if (parentFd_ >= 0)
      ::close(parentFd_);
    parentFd_ = file_->release(); // the marker stays until the child's dump replaces it
  }
  mutex_.unlock();
}

} // namespace jitsym::writer
