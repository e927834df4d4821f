// What a process has written through a stdio FILE but not yet to its file.
//
// Why: runtimes write jitdumps through a fully buffered FILE (V8 does), so at a
// stop the records of the code the user is looking at are often still in the
// process's memory. glibc keeps every open FILE on a list (_IO_list_all); the
// FILE on a given descriptor holds its pending output between _IO_write_base
// and _IO_write_ptr. The layout of struct _IO_FILE is glibc's public ABI, so it
// is read with this machine's own definition, for targets of the same ABI.
//
// The bytes are only what the FILE holds now, not a promise: glibc resets
// _IO_write_ptr after its write(2), so a stop in between finds bytes the file
// has already. JitdumpReader takes them as provisional (JitdumpReader.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class StdioBuffer {
public:
  // The bytes buffered for output on any of `descriptors` (nothing found: an
  // empty string; the process does not use glibc's stdio, or not for them).
  // `fileSize`: the file's size now; while it stays the same, the buffer has
  // not been flushed and only grew, so only its new bytes are read.
  std::string unflushed(lldb::SBTarget &target, lldb::SBProcess &process,
                        const std::vector<int> &descriptors, uint64_t fileSize);
  // The process changed (exec, relaunch): look the list up again.
  void forget() {
    listHead_.reset();
    last_.reset();
  }

private:
  // What the last call read: the compile watch stops at every fwrite into a
  // buffer of up to 2 MiB (V8's); read whole each time, the bytes read would
  // grow with the square of the records.
  struct LastRead {
    uint64_t file = 0, base = 0, fileSize = 0;
    std::string bytes;
  };
  std::optional<uint64_t> listHead_; // address of _IO_list_all, 0 when absent
  std::optional<LastRead> last_;
};

} // namespace jitsym::plugin
