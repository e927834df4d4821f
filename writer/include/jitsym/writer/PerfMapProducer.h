// This process's perf map, /tmp/perf-PID.map, with the semantics of CPython's
// perf map API (see jitsym-writer.h): opened on first use, one whole line per
// write under a lock, appended to (so a runtime's own writer can share it),
// and, after fork, a file of the child's own that starts with the parent's
// lines. Return values are jitsym-writer.h's JITSYM_* codes.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "jitsym/writer/ForkAware.h"

namespace jitsym::writer {

class RecordFile;

class PerfMapProducer final : public ForkAware {
public:
  PerfMapProducer();
  ~PerfMapProducer() override;

  int init(std::string *error = nullptr);
  int write(uint64_t address, uint64_t size, std::string_view name);
  void fini();

  // Lines are held in memory and written 64 KiB at a time until release.
  void holdWrites();
  void releaseWrites();

  // /tmp/perf-PID.map of the calling process (the file written next).
  static std::string pathForThisProcess();

  void beforeFork() override;
  void afterForkInParent() override;
  void afterForkInChild() override;

private:
  int openLocked(std::string *error);

  std::mutex mutex_;
  RecordFile *file_;
  // After a fork, in the child: the parent's map and its size at the fork,
  // copied into the child's own map when that is opened.
  int parentFd_ = -1;
  uint64_t parentSize_ = 0;
};

} // namespace jitsym::writer
