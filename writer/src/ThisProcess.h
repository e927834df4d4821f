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
// How many of the `size` bytes at `address` this process can read, by the
// kernel's word (process_vm_readv on itself: a page it cannot read is an
// error there, not a crash). A runtime may report code past the memory it has
// made readable: Temurin 25 under LLDB reported a stub blob running past its
// code heap's committed end, and scanning it killed the JVM. One byte is asked
// when the range's last is readable (a code blob is one mapping: its pages
// between are too), a few more to find where reading stops otherwise; `size`
// when the kernel cannot be asked.
uint64_t readableLength(const void *address, uint64_t size);
// Whether the file open as `fd` was last written before this process started:
// then it is a map left by an earlier process that had this PID. False when
// that cannot be told.
bool writtenBeforeThisProcess(int fd);

} // namespace jitsym::writer
