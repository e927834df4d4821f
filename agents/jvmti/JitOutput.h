// The agent's files: jit-PID.dump (always) and /tmp/perf-PID.map (option
// perfmap). Records are encoded by the core's JitdumpWriter and written under
// one lock, so every record is whole when a reader (jit-sync at a stop, perf)
// sees it and records of different threads never interleave.
//
// Each record is written before its event returns, so a debugger that stops
// the JVM finds every announced method in the file, except while the replay
// of existing code runs (at VM init, or an attach): then records are held in
// memory and written 64 KiB at a time, the rest when it ends (a millisecond
// or so later): that spares hundreds of small writes.
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

  // Between these, records are held in memory instead of written one by one;
  // what is held is written when it reaches kHeldBytes, and on release.
  void holdWrites();
  void releaseWrites();
  static constexpr size_t kHeldBytes = 64 << 10;
  // Larger code is not copied: it goes from the code to the file in the
  // record's write (HotSpot's largest blobs, of 100-600 KiB, at VM init).
  static constexpr size_t kCopiedCodeBytes = 16 << 10;
  // In such code, a run of at least this many zero bytes (whole blocks of
  // kZeroBlockBytes from the code's start) is not written but left as a hole
  // in the file, which reads back as zeros: HotSpot's 563 KiB "C1 temporary
  // CodeBuffer" is 98% zeros at VM init, and page-cache writes cost ~1 us/KiB.
  static constexpr size_t kZeroBlockBytes = 4 << 10;
  static constexpr size_t kHoleBytes = 4 * kZeroBlockBytes;

  const std::string &dumpPath() const { return dump_.path; }
  const std::string &mapPath() const { return map_.path; }

private:
  struct File {
    int fd = -1;
    std::string path;
    std::string held; // records encoded and not written yet
    uint64_t end = 0; // where the next bytes go: writes are positioned
  };
  JitOutput() = default;
  // Under the lock, after records were appended to `file.held`: writes them,
  // unless writes are held and the limit is not reached.
  void commitLocked(File &file);
  // Writes what `file` holds.
  void flushLocked(File &file);
  // Writes `first` then `second` in one pwritev(2) at `file.end`. On the
  // first failure reports it once and stops writing that file, keeping what
  // is in it valid.
  void writeLocked(File &file, std::string_view first, std::string_view second);
  // Writes `header` then `code`, leaving the code's long zero runs as holes.
  void writeCodeLocked(File &file, std::string_view header, std::string_view code);
  // Extends the file by `bytes` zeros without writing them.
  void skipLocked(File &file, uint64_t bytes);
  void failLocked(File &file, int error);

  struct LiveCode {
    const void *owner;
    uint64_t size;
    uint64_t index;
  };
  std::mutex mutex_;
  File dump_, map_;
  void *marker_ = nullptr;
  size_t markerSize_ = 0;
  uint32_t pid_ = 0;
  uint64_t nextIndex_ = 1;
  bool closed_ = false;
  bool holding_ = false;
  std::unordered_map<uint64_t, LiveCode> live_; // by code address
};

} // namespace jitsym::jvmti
