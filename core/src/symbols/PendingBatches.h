// The symbol table's pending batches of announcements, ordered by address
// when they are applied: a view of them as one array, a radix sort on two
// threads, and which symbols a later announcement in the same batch replaces.
// Private to SymbolTable.cpp.
#pragma once

#include <cassert>
#include <cstdint>
#include <vector>

#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

// Capacity for an array of n symbols that will become the table: room to grow
// in place, so the next syncs' additions do not copy the whole table into fresh
// memory (untouched capacity costs address space only).
inline size_t withHeadroom(size_t n) { return n + n / 4 + 1024; }

// The pending batches of announcements, seen as one array in announcement order.
class PendingView {
public:
  explicit PendingView(const std::vector<BigArray<Symbol>> &batches) : batches_(batches) {
    for (const BigArray<Symbol> &batch : batches)
      size_ += batch.size();
  }
  size_t size() const { return size_; }
  const Symbol &operator[](size_t position) const {
    for (const BigArray<Symbol> &batch : batches_) {
      if (position < batch.size())
        return batch[position];
      position -= batch.size();
    }
    assert(false && "position past the pending symbols");
    return batches_.back().back();
  }
  // Calls fn(position, symbol) for the positions in [begin, end).
  template <class Fn> void forEach(size_t begin, size_t end, Fn &&fn) const {
    size_t base = 0;
    for (const BigArray<Symbol> &batch : batches_) {
      for (size_t i = std::max(begin, base); i < std::min(end, base + batch.size()); ++i)
        fn(i, batch[i - base]);
      base += batch.size();
    }
  }
  bool inAddressOrder() const {
    const Symbol *previous = nullptr;
    for (const BigArray<Symbol> &batch : batches_) {
      if (batch.empty())
        continue;
      if (previous && batch.front().address < previous->address)
        return false;
      if (!std::is_sorted(batch.begin(), batch.end(), [](const Symbol &a, const Symbol &b) {
            return a.address < b.address;
          }))
        return false;
      previous = &batch.back();
    }
    return true;
  }

private:
  const std::vector<BigArray<Symbol>> &batches_;
  size_t size_ = 0;
};

// The pending symbols as one array in announcement order, numbered from
// firstSequence; when the batches are already in address order.
BigArray<Symbol> concatenate(std::vector<BigArray<Symbol>> &batches, uint64_t firstSequence);
// The pending symbols sorted by address (ties: announcement order), numbered
// from firstSequence.
BigArray<Symbol> sortByAddress(const PendingView &pending, uint64_t firstSequence);
// Which symbols of an address-ordered batch a later announcement in the same
// batch overlaps.
std::vector<char> batchCasualties(const BigArray<Symbol> &batch);

} // namespace jitsym
