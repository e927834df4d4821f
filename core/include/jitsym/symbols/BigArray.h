// Storage for the symbol table's big flat arrays. Blocks of 2 MiB and more are
// mapped directly and marked for transparent huge pages, so filling a table of a
// million symbols costs tens of page faults instead of tens of thousands (the
// faults were a third of a 1M-line load). Small blocks use the normal heap.
// Growing an array default-initializes the new elements: bytes a reader is about
// to overwrite and trivial records are not zero-filled first.
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace jitsym {

namespace bigarray {
constexpr size_t kHugePage = size_t(2) << 20;
void *allocate(size_t bytes);             // huge-page-backed when bytes >= kHugePage
void deallocate(void *block, size_t bytes);
} // namespace bigarray

template <class T> struct BigArrayAllocator {
  using value_type = T;
  BigArrayAllocator() = default;
  template <class U> BigArrayAllocator(const BigArrayAllocator<U> &) {}
  T *allocate(size_t n) { return static_cast<T *>(bigarray::allocate(n * sizeof(T))); }
  void deallocate(T *block, size_t n) { bigarray::deallocate(block, n * sizeof(T)); }
  template <class U> void construct(U *at) { ::new (static_cast<void *>(at)) U; }
  template <class U, class... Args> void construct(U *at, Args &&...args) {
    ::new (static_cast<void *>(at)) U(std::forward<Args>(args)...);
  }
  template <class U> bool operator==(const BigArrayAllocator<U> &) const { return true; }
  template <class U> bool operator!=(const BigArrayAllocator<U> &) const { return false; }
};

template <class T> using BigArray = std::vector<T, BigArrayAllocator<T>>;

} // namespace jitsym
