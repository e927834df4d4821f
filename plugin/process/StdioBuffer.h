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
  std::string unflushed(lldb::SBTarget &target, lldb::SBProcess &process,
                        const std::vector<int> &descriptors);
  // The process changed (exec, relaunch): look the list up again.
  void forget() { listHead_.reset(); }

private:
  std::optional<uint64_t> listHead_; // address of _IO_list_all, 0 when absent
};

} // namespace jitsym::plugin
