// This process's jitdump, DIR/jit-PID.dump (see jitsym-writer.h): records are
// encoded by the core's JitdumpWriter and written under one lock, so each is
// whole when a reader (jit-sync at a stop, perf) sees it and the records of
// different threads never interleave. Each record is written before its call
// returns, unless writes are held (a runtime replaying its existing code at
// start-up). After fork, the child's first record starts a dump of its own
// with the parent's records in it. Return values are jitsym-writer.h's codes.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jitsym/formats/JitdumpWriter.h"
#include "jitsym/writer/ForkAware.h"

namespace jitsym::writer {

class RecordFile;

class JitdumpProducer final : public ForkAware {
public:
  JitdumpProducer();
  ~JitdumpProducer() override;

  // Creates DIRECTORY/jit-PID.dump (empty: $JITDUMPDIR, else /tmp), writes the
  // header and maps the first page executable, which is how perf and jit-sync
  // find a jitdump in the process's memory map. Nothing if already open.
  int open(const std::string &directory, std::string *error = nullptr);
  // Code at [address, address + size) now holds `name`; `lines` (may be
  // empty) are absolute addresses. Opens the dump with the defaults if it
  // never was. The code's bytes are read from `address`. `owner` is the
  // caller's tag for what put the code there (see unload). `entry`, when
  // after `address` and inside the code: where every call enters it (a
  // JITSYM_CODE_ENTRY record precedes the CODE_LOAD); 0 for none.
  int load(uint64_t address, uint64_t size, std::string_view name,
           const std::vector<DebugLineFields> &lines, const void *owner = nullptr,
           uint64_t entry = 0);
  // The code loaded at `address` is gone: JITSYM_ERR_UNKNOWN if none is, or
  // if `owner` is given and newer code of another owner took the address.
  int unload(uint64_t address, std::optional<const void *> owner = std::nullopt);
  // Whether the code loaded at `address` is `size` bytes from `owner`.
  bool holds(uint64_t address, uint64_t size, const void *owner);
  // Writes CODE_CLOSE; loads and unloads after it fail with JITSYM_ERR_CLOSED
  // until open() starts a new dump.
  void close();

  // Between these, records are held in memory and written 64 KiB at a time.
  void holdWrites();
  void releaseWrites();
  // Larger code is not copied while held: it goes from the code to the file
  // in the record's write (HotSpot's largest blobs, of 100-600 KiB).
  static constexpr size_t kCopiedCodeBytes = 16 << 10;

  std::string path();

  void beforeFork() override;
  void afterForkInParent() override;
  void afterForkInChild() override;

private:
  int openLocked(const std::string &directory, std::string *error);
  int writableLocked();
  void unmapMarker();

  std::mutex mutex_;
  RecordFile *file_;
  std::string directory_;
  bool closed_ = false; // close() was called: no reopening on write
  void *marker_ = nullptr;
  size_t markerSize_ = 0;
  uint32_t pid_ = 0;
  uint64_t nextIndex_ = 1;
  struct LiveCode {
    const void *owner;
    uint64_t size;
    uint64_t index;
  };
  std::unordered_map<uint64_t, LiveCode> live_; // by code address
  // After a fork, in the child: the parent's dump and its end at the fork,
  // whose records the child's own dump starts with.
  int parentFd_ = -1;
  uint64_t parentEnd_ = 0;
};

} // namespace jitsym::writer
