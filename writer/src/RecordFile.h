// A file that one process appends whole records to: the jitdump (positioned
// writes at the end this process knows) or a perf map (O_APPEND, so that other
// writers in the process, such as a runtime's own, can share it). Not locked:
// its owner (a producer) holds a lock around every call.
//
// Records can be held in memory (`holding`) and written 64 KiB at a time; a
// large code blob's long zero runs can be left as holes. The first failed
// write closes the file and is remembered: what is in it stays valid, since
// readers expect a writer that stops at a record boundary or in one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace jitsym::writer {

class RecordFile {
public:
  enum class Mode { Positioned, Append };

  RecordFile() = default;
  RecordFile(const RecordFile &) = delete;
  RecordFile &operator=(const RecordFile &) = delete;
  ~RecordFile() { close(); }

  // Positioned: creates `path`, replacing what was there. Append: opens it,
  // creating it if needed, and empties it if `stale` says so. Links are not
  // followed; a file owned by another user is refused (EACCES). On failure
  // returns false with errno set and `error` saying what failed.
  bool open(const std::string &path, Mode mode, std::string &error,
            bool (*stale)(int fd) = nullptr);
  void close();
  bool isOpen() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  // Hands the descriptor over (for a forked child to read the parent's bytes).
  int release();

  const std::string &path() const { return path_; }
  uint64_t end() const { return end_; }
  // The errno of the write that failed, 0 while none did.
  int failure() const { return failure_; }
  // JITSYM_OK, or JITSYM_ERR_WRITE with errno set once a write failed.
  int result() const;

  // Records are encoded into held(), then commit() writes them unless writes
  // are held and less than kHeldBytes is held; flush() writes them anyway.
  // The debugger hears of what is written (codeAnnounced) only if a record
  // written since it last did was marked `wanted` (debuggerWants).
  void wanted(bool wanted) { announce_ = announce_ || wanted; }
  std::string &held() { return held_; }
  void commit();
  void flush();
  // Holding is a choice of the producer: it lasts across close() and open().
  void setHolding(bool holding);
  bool holding() const { return holding_; }
  static constexpr size_t kHeldBytes = 64 << 10;

  // Writes held() then `code`; long zero runs of `code` become holes.
  void writeWithCode(std::string_view code);
  static constexpr size_t kZeroBlockBytes = 4 << 10;
  static constexpr size_t kHoleBytes = 4 * kZeroBlockBytes;

  // Writes `bytes` as they are (positioned mode: at end()).
  void write(std::string_view bytes) { writeParts(bytes, {}); }
  // Writes bytes [begin, end) of the file open as `fd` (a forked child copies
  // what its parent wrote before the fork).
  void copyFrom(int fd, uint64_t begin, uint64_t end);

private:
  void writeParts(std::string_view first, std::string_view second);
  void skip(uint64_t bytes);
  void fail(int error);

  int fd_ = -1;
  Mode mode_ = Mode::Positioned;
  std::string path_;
  std::string held_;
  uint64_t end_ = 0;
  int failure_ = 0;
  bool holding_ = false;
  bool announce_ = false; // a record the debugger may want is not announced yet
};

} // namespace jitsym::writer
