// Huge-page-backed blocks: map 2 MiB more than needed, trim to a 2 MiB-aligned
// block, and ask for transparent huge pages (honoured in the kernel's default
// "madvise" mode; harmless where THP is off).
#include "jitsym/symbols/BigArray.h"

#include <cstdint>
#include <sys/mman.h>

namespace jitsym::bigarray {
namespace {

size_t mappedSize(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

} // namespace

void *allocate(size_t bytes) {
  if (bytes < kHugePage)
    return ::operator new(bytes);
  const size_t size = mappedSize(bytes);
  void *raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    throw std::bad_alloc();
  auto start = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start)
    ::munmap(raw, aligned - start);
  if (uintptr_t tail = start + size + kHugePage - (aligned + size))
    ::munmap(reinterpret_cast<void *>(aligned + size), tail);
  ::madvise(reinterpret_cast<void *>(aligned), size, MADV_HUGEPAGE);
  return reinterpret_cast<void *>(aligned);
}

void deallocate(void *block, size_t bytes) {
  if (bytes < kHugePage)
    ::operator delete(block);
  else
    ::munmap(block, mappedSize(bytes));
}

} // namespace jitsym::bigarray
