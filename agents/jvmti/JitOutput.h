// The agent's files: jit-PID.dump (always) and /tmp/perf-PID.map (option
// perfmap), written by libjitsym-writer's producers: each record is whole
// when a reader (jit-sync at a stop, perf) sees it, and records of different
// threads never interleave.
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
#include <vector>

#include "AgentOptions.h"
#include "jitsym/writer/JitdumpProducer.h"
#include "jitsym/writer/PerfMapProducer.h"

namespace jitsym::jvmti {

class JitOutput {
public:
  // Creates the files (see JitdumpProducer::open).
  static std::unique_ptr<JitOutput> open(const AgentOptions &options, std::string &error);

  // Code at [address, address + size) now holds `name`. `owner` identifies
  // what put it there (the jmethodID; null for stubs), for unload(). A stub
  // already written at the same address and size is not written again.
  // `entry`: where every call enters the code, when not at `address` (the
  // jitdump says so; a perf map cannot); 0 for none.
  void load(const void *owner, uint64_t address, uint64_t size, std::string_view name,
            const std::vector<DebugLineFields> &lines, uint64_t entry = 0);
  // `owner`'s code at `address` was freed. Written only when it is still the
  // code the dump last placed there.
  void unload(const void *owner, uint64_t address);
  // Writes CODE_CLOSE; anything after is dropped (VM death).
  void close();

  // Between these, records are held in memory instead of written one by one.
  void holdWrites();
  void releaseWrites();
  static constexpr size_t kCopiedCodeBytes = writer::JitdumpProducer::kCopiedCodeBytes;

  const std::string &dumpPath() const { return dumpPath_; }
  const std::string &mapPath() const { return mapPath_; }

private:
  JitOutput() = default;
  // Says once on stderr that a file could not be written any more.
  void reportLocked(int result, const std::string &path, bool &reported);

  std::mutex mutex_; // orders the replay check of a stub with its record
  writer::JitdumpProducer dump_;
  std::unique_ptr<writer::PerfMapProducer> map_;
  std::string dumpPath_, mapPath_;
  bool closed_ = false;
  bool dumpFailed_ = false, mapFailed_ = false;
};

} // namespace jitsym::jvmti
