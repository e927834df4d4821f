#include "jitsym/writer/PerfMapProducer.h"

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

#include "RecordFile.h"
#include "ThisProcess.h"
#include "jitsym-writer.h"
#include "jitsym/writer/DebuggerHook.h"
#include "jitsym/formats/JitdumpWriter.h"

namespace jitsym::writer {

PerfMapProducer::PerfMapProducer() : file_(new RecordFile()) { watchForks(this); }

PerfMapProducer::~PerfMapProducer() {
  unwatchForks(this);
  delete file_;
  if (parentFd_ >= 0)
    ::close(parentFd_);
}

std::string PerfMapProducer::pathForThisProcess() {
  return "/tmp/perf-" + std::to_string(::getpid()) + ".map";
}

int PerfMapProducer::openLocked(std::string *error) {
  if (file_->isOpen())
    return JITSYM_OK;
  std::string why;
  if (!file_->open(pathForThisProcess(), RecordFile::Mode::Append, why,
                   writtenBeforeThisProcess)) {
    if (error)
      *error = why;
    return JITSYM_ERR_OPEN;
  }
  if (parentFd_ >= 0) { // a forked child: the parent's code is ours too
    file_->copyFrom(parentFd_, 0, parentSize_);
    ::close(parentFd_);
    parentFd_ = -1;
  }
  return JITSYM_OK;
}

int PerfMapProducer::init(std::string *error) {
  std::lock_guard<std::mutex> lock(mutex_);
  return openLocked(error);
}

int PerfMapProducer::write(uint64_t address, uint64_t size, std::string_view name) {
  if (address == 0 || size == 0 || name.find_first_of("\n\r") != std::string_view::npos) {
    errno = EINVAL;
    return JITSYM_ERR_ARG;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (const int opened = openLocked(nullptr); opened != JITSYM_OK)
    return opened;
  file_->held() += perfMapLine(address, size, name);
  file_->wanted(debuggerWants(name, address, size));
  file_->commit();
  return file_->result();
}

void PerfMapProducer::fini() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_->flush();
  file_->close();
}

void PerfMapProducer::holdWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_->setHolding(true);
}

void PerfMapProducer::releaseWrites() {
  std::lock_guard<std::mutex> lock(mutex_);
  file_->setHolding(false);
}

void PerfMapProducer::beforeFork() {
  mutex_.lock();
  file_->flush(); // held lines belong to the parent's file, and the child's copy
  struct stat status {};
  parentSize_ = file_->isOpen() && ::fstat(file_->fd(), &status) == 0
                    ? static_cast<uint64_t>(status.st_size)
                    : 0;
}

void PerfMapProducer::afterForkInParent() { mutex_.unlock(); }

void PerfMapProducer::afterForkInChild() {
  if (file_->isOpen()) {
    if (parentFd_ >= 0)
      ::close(parentFd_);
    parentFd_ = file_->release();
  }
  mutex_.unlock();
}

} // namespace jitsym::writer
