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
// How many of the `size` bytes at `address` this process can read, from the
// start up to its first page it cannot read, by the kernel's word
// (process_vm_readv on itself: a page it cannot read is an error there, not a
// crash). A runtime may report code past the memory it has made readable:
// Temurin 25's replay of its stubs reported one still being generated, with
// no end, as running from its code heap to the top of the address space, and
// scanning it killed the JVM. One call asks about 256 pages (one byte of
// each); `size` when the kernel cannot be asked.
uint64_t readableLength(const void *address, uint64_t size);
// Whether the file open as `fd` was last written before this process started:
// then it is a map left by an earlier process that had this PID. False when
// that cannot be told.
bool writtenBeforeThisProcess(int fd);

} // namespace jitsym::writer
