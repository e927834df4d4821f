// The agent's files: jit-PID.dump (always) and /tmp/perf-PID.map (option
// perfmap). Records are encoded by the core's JitdumpWriter and written with
// one write(2) each, under one lock, so every record is whole when a reader
// (jit-sync at a stop, perf) sees it and records of different threads never
// interleave. Nothing is buffered in the process: a debugger that stops the
// JVM finds every announced method in the file.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "AgentOptions.h"
#include "jitsym/JitdumpWriter.h"

namespace jitsym::jvmti {

class JitOutput {
public:
  // Creates the files and maps the dump's first page executable, which is how
  // perf and jit-sync find a jitdump in the process's memory map.
  static std::unique_ptr<JitOutput> open(const AgentOptions &options, std::string &error);
  ~JitOutput();

  // Code at [address, address + size) now holds `name`. `owner` identifies
  // what put it there (the jmethodID; null for stubs), for unload(). A stub
  // already written at the same address and size is not written again.
  void load(const void *owner, uint64_t address, uint64_t size, std::string_view name,
            const std::vector<DebugLineFields> &lines);
  // `owner`'s code at `address` was freed. Written only when it is still the
  // code the dump last placed there.
  void unload(const void *owner, uint64_t address);
  // Writes CODE_CLOSE; anything after is dropped (VM death).
  void close();

  const std::string &dumpPath() const { return dumpPath_; }
  const std::string &mapPath() const { return mapPath_; }

private:
  JitOutput() = default;
  // Appends under the lock; on the first failure reports it once and stops
  // writing that file, keeping what is in it valid.
  void writeLocked(int &fd, const std::string &path, const std::string &bytes);

  struct LiveCode {
    const void *owner;
    uint64_t size;
    uint64_t index;
  };
  std::mutex mutex_;
  int dumpFd_ = -1, mapFd_ = -1;
  void *marker_ = nullptr;
  size_t markerSize_ = 0;
  std::string dumpPath_, mapPath_;
  uint64_t nextIndex_ = 1;
  bool closed_ = false;
  std::unordered_map<uint64_t, LiveCode> live_; // by code address
};

} // namespace jitsym::jvmti
