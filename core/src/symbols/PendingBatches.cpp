// Ordering the symbol table's pending announcements by address.
#include "PendingBatches.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

#include "jitsym/base/Parallel.h"

namespace jitsym {
namespace {

// Stable LSD radix sort of keys[0, n) by bits [firstBit, endBit) of bitsOf(key),
// 11 bits at a time so each scatter stays within the cache; `scratch` holds n
// keys. One pass counts every digit; digits that are the same in every key are
// skipped.
template <class Key, class Bits>
void radixSort(Key *keys, Key *scratch, size_t n, unsigned firstBit, unsigned endBit,
               Bits bitsOf) {
  constexpr unsigned kDigitBits = 11;
  constexpr size_t kBuckets = size_t(1) << kDigitBits;
  if (n == 0 || endBit <= firstBit)
    return;
  const unsigned digits = (endBit - firstBit + kDigitBits - 1) / kDigitBits;
  std::vector<size_t> counts(digits * kBuckets, 0);
  auto digit = [&](const Key &k, unsigned d) {
    return (bitsOf(k) >> (firstBit + d * kDigitBits)) & (kBuckets - 1);
  };
  for (size_t i = 0; i < n; ++i)
    for (unsigned d = 0; d < digits; ++d)
      ++counts[d * kBuckets + digit(keys[i], d)];
  Key *from = keys, *to = scratch;
  for (unsigned d = 0; d < digits; ++d) {
    size_t *count = &counts[d * kBuckets];
    if (count[digit(from[0], d)] == n)
      continue; // every key has this digit: the pass would change nothing
    size_t total = 0;
    for (size_t b = 0; b < kBuckets; ++b) {
      size_t c = count[b];
      count[b] = total;
      total += c;
    }
    for (size_t i = 0; i < n; ++i)
      to[count[digit(from[i], d)]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys)
    std::copy(from, from + n, keys);
}

// Merges the sorted runs a and b into `out`, stably (a first among equals): one
// thread fills the front half of `out` from the runs' fronts while the other
// fills the back half from their backs.
template <class Key, class Less>
void mergeFromBothEnds(const Key *a, size_t na, const Key *b, size_t nb, Key *out,
                       Less less) {
  const size_t n = na + nb, front = n / 2;
  runBoth(
      [&] {
        size_t i = 0, j = 0;
        for (size_t k = 0; k < front; ++k)
          out[k] = j < nb && (i == na || less(b[j], a[i])) ? b[j++] : a[i++];
      },
      [&] {
        size_t i = na, j = nb;
        for (size_t k = n; k > front; --k)
          out[k - 1] = i > 0 && (j == 0 || less(b[j - 1], a[i - 1])) ? a[--i] : b[--j];
      });
}

// Sorts `keys` (whose initial order is announcement order) stably by
// bits [firstBit, endBit); large arrays are sorted as two halves on two threads
// and merged, the first half winning ties so the result stays stable.
template <class Key, class Bits, class Less>
void sortKeys(BigArray<Key> &keys, unsigned firstBit, unsigned endBit, Bits bitsOf,
              Less less) {
  const size_t n = keys.size();
  BigArray<Key> scratch(n);
  Key *all = keys.data(), *spare = scratch.data();
  if (n < 2 * kParallelThreshold) {
    radixSort(all, spare, n, firstBit, endBit, bitsOf);
    return;
  }
  const size_t half = n / 2;
  runBoth([&] { radixSort(all, spare, half, firstBit, endBit, bitsOf); },
          [&] { radixSort(all + half, spare + half, n - half, firstBit, endBit, bitsOf); });
  mergeFromBothEnds(all, half, all + half, n - half, spare, less);
  keys.swap(scratch);
}

// Copies pending[positionOf(keys[i])] to sorted[i], numbering each symbol by its
// announcement (firstSequence + position).
template <class Key, class Position>
BigArray<Symbol> gather(const PendingView &pending, const BigArray<Key> &keys,
                        uint64_t firstSequence, Position positionOf) {
  BigArray<Symbol> sorted;
  sorted.reserve(withHeadroom(keys.size()));
  sorted.resize(keys.size());
  inHalves(keys.size(), [&](unsigned, size_t begin, size_t end) {
    // The reads are random: ask for them well ahead.
    constexpr size_t kAhead = 16;
    for (size_t i = begin; i < end; ++i) {
      if (i + kAhead < end)
        __builtin_prefetch(&pending[positionOf(keys[i + kAhead])]);
      const uint64_t position = positionOf(keys[i]);
      sorted[i] = pending[position];
      sorted[i].sequence = firstSequence + position;
    }
  });
  return sorted;
}

} // namespace

// The pending symbols as one array in announcement order, numbered from
// firstSequence.
BigArray<Symbol> concatenate(std::vector<BigArray<Symbol>> &batches, uint64_t firstSequence) {
  BigArray<Symbol> all;
  if (batches.size() == 1) {
    all.swap(batches.front());
    inHalves(all.size(), [&](unsigned, size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i)
        all[i].sequence = firstSequence + i;
    });
    return all;
  }
  const PendingView pending(batches);
  all.reserve(withHeadroom(pending.size()));
  all.resize(pending.size());
  inHalves(all.size(), [&](unsigned, size_t begin, size_t end) {
    pending.forEach(begin, end, [&](size_t i, const Symbol &symbol) {
      all[i] = symbol;
      all[i].sequence = firstSequence + i;
    });
  });
  return all;
}

// The pending symbols in address order (announcement order among equal
// addresses), numbered from firstSequence. The keys pack (address - lowest
// address, position) into 64 bits whenever the code spans less than
// 2^(64 - log2 n) bytes, which real processes do; otherwise they are
// (address, position) pairs.
BigArray<Symbol> sortByAddress(const PendingView &pending, uint64_t firstSequence) {
  const size_t n = pending.size();
  unsigned positionBits = 1;
  while ((size_t(1) << positionBits) < n)
    ++positionBits;
  uint64_t lowestOf[2] = {UINT64_MAX, UINT64_MAX}, highestOf[2] = {0, 0};
  inHalves(n, [&](unsigned half, size_t begin, size_t end) {
    uint64_t lowest = UINT64_MAX, highest = 0;
    pending.forEach(begin, end, [&](size_t, const Symbol &s) {
      lowest = std::min(lowest, s.address);
      highest = std::max(highest, s.address);
    });
    lowestOf[half] = lowest;
    highestOf[half] = highest;
  });
  const uint64_t lowest = std::min(lowestOf[0], lowestOf[1]);
  const uint64_t highest = std::max(highestOf[0], highestOf[1]);
  unsigned spanBits = 0;
  while (spanBits < 64 && ((highest - lowest) >> spanBits) != 0)
    ++spanBits;

  if (spanBits + positionBits <= 64) {
    BigArray<uint64_t> keys(n);
    inHalves(n, [&](unsigned, size_t begin, size_t end) {
      pending.forEach(begin, end, [&](size_t i, const Symbol &s) {
        keys[i] = ((s.address - lowest) << positionBits) | i;
      });
    });
    // Keys start in position order, so sorting the address bits alone is stable.
    sortKeys(keys, positionBits, positionBits + spanBits, [](uint64_t k) { return k; },
             std::less<uint64_t>());
    const uint64_t positionMask = (uint64_t(1) << positionBits) - 1;
    return gather(pending, keys, firstSequence, [&](uint64_t k) { return k & positionMask; });
  }
  struct Key {
    uint64_t address;
    uint64_t position;
  };
  BigArray<Key> keys(n);
  pending.forEach(0, n, [&](size_t i, const Symbol &s) { keys[i] = {s.address, i}; });
  sortKeys(keys, 0, 64, [](const Key &k) { return k.address; },
           [](const Key &a, const Key &b) {
             return a.address != b.address ? a.address < b.address : a.position < b.position;
           });
  return gather(pending, keys, firstSequence, [](const Key &k) { return k.position; });
}

// Which symbols of an address-ordered batch a later announcement in the same
// batch overlaps. Neighbours are compared directly, which is linear when
// overlaps are rare (the normal case); when they pile up (one range reused
// thousands of times) it switches to a sweep from the newest announcement down
// over the union of newer ranges, O(n log n) whatever the input.
std::vector<char> batchCasualties(const BigArray<Symbol> &batch) {
  std::vector<char> dead(batch.size(), 0);
  const size_t budget = 8 * batch.size() + 1024;
  size_t comparisons = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const uint64_t end = batch[i].end();
    for (size_t j = i + 1; j < batch.size() && batch[j].address < end; ++j) {
      if (++comparisons > budget)
        goto sweep;
      if (batch[j].sequence > batch[i].sequence)
        dead[i] = 1;
      else
        dead[j] = 1;
    }
  }
  return dead;

sweep : {
  std::fill(dead.begin(), dead.end(), 0);
  std::vector<uint32_t> newestFirst(batch.size());
  std::iota(newestFirst.begin(), newestFirst.end(), 0u);
  std::sort(newestFirst.begin(), newestFirst.end(), [&](uint32_t a, uint32_t b) {
    return batch[a].sequence > batch[b].sequence;
  });
  std::map<uint64_t, uint64_t> newer; // disjoint [start, end) of newer symbols
  for (uint32_t index : newestFirst) {
    uint64_t start = batch[index].address, end = batch[index].end();
    auto it = newer.upper_bound(start);
    if (it != newer.begin() && std::prev(it)->second > start)
      --it;
    if (it != newer.end() && it->first < end)
      dead[index] = 1;
    while (it != newer.end() && it->first <= end) { // merge what touches
      start = std::min(start, it->first);
      end = std::max(end, it->second);
      it = newer.erase(it);
    }
    newer.emplace(start, end);
  }
  return dead;
}
}

} // namespace jitsym
