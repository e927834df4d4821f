// Which of the program's descriptors the write filter reads (WriteFilter.cpp):
// the runtime's own perf map and jitdump, named after its PID (perf-PID.map,
// jit-PID.dump), as /proc/self/fd says, once per descriptor. Lock-free and
// allocation-free: write() is called from signal handlers too.
#pragma once

#include <cstdint>

enum Kind : int8_t { Unknown = 0, Other = 1, PerfMap = 2, Jitdump = 3 };

// The descriptor's kind; Other while the filter is off (generation 0).
Kind kindOf(int fd);
// At close: the descriptor's kind is looked at again at its next write.
// Returns whether it was a followed file (its stream is then to go too).
bool forgetKind(int fd);
