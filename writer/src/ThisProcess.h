// Facts about the writing process that records carry or files are judged by.
#pragma once

#include <cstdint>

namespace jitsym::writer {

// CLOCK_MONOTONIC in nanoseconds: jitdump timestamps (perf's clock).
uint64_t monotonicNanoseconds();
// The calling thread's id, asked of the kernel once per thread.
uint32_t threadId();
// Called in a forked child: the forking thread's id changed.
void forgetThreadIdsAfterFork();
// This machine's ELF e_machine, for the jitdump header.
uint32_t elfMachine();
// Whether the file open as `fd` was last written before this process started:
// then it is a map left by an earlier process that had this PID. False when
// that cannot be told.
bool writtenBeforeThisProcess(int fd);

} // namespace jitsym::writer
