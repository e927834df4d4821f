// Symbol table: batched announcements, "later overlapping announcement wins",
// change tracking.
#include "jitsym/SymbolTable.h"

#include "jitsym/Parallel.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <map>
#include <numeric>

namespace jitsym {
namespace {

// Capacity for an array of n symbols that will become the table: room to grow
// in place, so the next syncs' additions do not copy the whole table into fresh
// memory (untouched capacity costs address space only).
size_t withHeadroom(size_t n) { return n + n / 4 + 1024; }

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
  std::merge(all, all + half, all + half, all + n, spare, less);
  keys.swap(scratch);
}

// Copies symbols[positionOf(keys[i])] to sorted[i], in two halves on two threads
// when it is large.
template <class Key, class Position>
BigArray<Symbol> gather(const BigArray<Symbol> &symbols, const BigArray<Key> &keys,
                        Position positionOf) {
  BigArray<Symbol> sorted;
  sorted.reserve(withHeadroom(keys.size()));
  sorted.resize(keys.size());
  auto copyRange = [&](size_t begin, size_t end) {
    // The reads are random: ask for them well ahead.
    constexpr size_t kAhead = 16;
    for (size_t i = begin; i < end; ++i) {
      if (i + kAhead < end)
        __builtin_prefetch(&symbols[positionOf(keys[i + kAhead])]);
      sorted[i] = symbols[positionOf(keys[i])];
    }
  };
  if (keys.size() < 2 * kParallelThreshold) {
    copyRange(0, keys.size());
  } else {
    const size_t half = keys.size() / 2;
    runBoth([&] { copyRange(0, half); }, [&] { copyRange(half, keys.size()); });
  }
  return sorted;
}

// Orders `symbols` by address, keeping announcement order among equal addresses.
// The keys pack (address - lowest address, position) into 64 bits whenever the
// code spans less than 2^(64 - log2 n) bytes, which real processes do; otherwise
// they are (address, position) pairs.
void sortByAddress(BigArray<Symbol> &symbols) {
  const size_t n = symbols.size();
  unsigned positionBits = 1;
  while ((size_t(1) << positionBits) < n)
    ++positionBits;
  uint64_t lowest = UINT64_MAX, highest = 0;
  for (const Symbol &s : symbols) {
    lowest = std::min(lowest, s.address);
    highest = std::max(highest, s.address);
  }
  unsigned spanBits = 0;
  while (spanBits < 64 && ((highest - lowest) >> spanBits) != 0)
    ++spanBits;

  if (spanBits + positionBits <= 64) {
    BigArray<uint64_t> keys(n);
    for (size_t i = 0; i < n; ++i)
      keys[i] = ((symbols[i].address - lowest) << positionBits) | i;
    // Keys start in position order, so sorting the address bits alone is stable.
    sortKeys(keys, positionBits, positionBits + spanBits, [](uint64_t k) { return k; },
             std::less<uint64_t>());
    const uint64_t positionMask = (uint64_t(1) << positionBits) - 1;
    symbols = gather(symbols, keys, [&](uint64_t k) { return k & positionMask; });
    return;
  }
  struct Key {
    uint64_t address;
    uint64_t position;
  };
  BigArray<Key> keys(n);
  for (size_t i = 0; i < n; ++i)
    keys[i] = {symbols[i].address, i};
  sortKeys(keys, 0, 64, [](const Key &k) { return k.address; },
           [](const Key &a, const Key &b) {
             return a.address != b.address ? a.address < b.address : a.position < b.position;
           });
  symbols = gather(symbols, keys, [](const Key &k) { return k.position; });
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

} // namespace

void SymbolTable::add(uint64_t address, uint64_t size, std::string_view name) {
  if (address + (size ? size : 1) <= address)
    return; // wraps past the top of the address space: no code lives there
  Symbol symbol;
  symbol.address = address;
  symbol.size = size;
  symbol.sequence = nextSequence_++;
  symbol.nameOffset = storeName(name);
  symbol.nameSize = static_cast<uint32_t>(name.size());
  pending_.push_back(symbol);
}

void SymbolTable::addAll(SymbolTable &&later) {
  // Same as add() for each, without copying names one by one. A symbol of
  // `later` that wraps was already refused by its add().
  assert(later.live_.empty() && "addAll takes a table that was only added to");
  const uint64_t nameBase = names_.size();
  pending_.reserve(withHeadroom(pending_.size() + later.pending_.size()));
  for (Symbol symbol : later.pending_) {
    symbol.sequence = nextSequence_++;
    symbol.nameOffset += nameBase;
    pending_.push_back(symbol);
  }
  names_.insert(names_.end(), later.names_.begin(), later.names_.end());
  later = SymbolTable();
}

uint64_t SymbolTable::storeName(std::string_view text) {
  // resize + memcpy: vector::insert of a range was a tenth of a 1M-line load.
  const size_t offset = names_.size();
  names_.resize(offset + text.size());
  if (!text.empty())
    std::memcpy(names_.data() + offset, text.data(), text.size());
  return offset;
}

void SymbolTable::recordRemoval(const Symbol &symbol) const {
  if (symbol.sequence <= publishedSequence_)
    pendingRemoved_.push_back({symbol.address, symbol.end()});
  deadNameBytes_ += symbol.nameSize;
}

void SymbolTable::flush() const {
  if (pending_.empty())
    return;
  // 1. The batch in address order (announcement order among equal addresses).
  //    Runtimes mostly announce rising addresses, so check before sorting.
  BigArray<Symbol> batch = std::move(pending_);
  pending_.clear();
  auto byAddress = [](const Symbol &a, const Symbol &b) {
    return a.address != b.address ? a.address < b.address : a.sequence < b.sequence;
  };
  if (!std::is_sorted(batch.begin(), batch.end(), byAddress))
    sortByAddress(batch);

  // 2. Inside the batch, a symbol survives unless a later one overlaps it.
  std::vector<char> dead = batchCasualties(batch);
  for (size_t i = 0; i < batch.size(); ++i)
    if (dead[i]) {
      deadNameBytes_ += batch[i].nameSize;
      ++replaced_;
    }

  // 3. Against the live symbols: every batch symbol is newer than every live one,
  //    so each removes the live symbols it overlaps, even one that a later batch
  //    symbol removed in turn. The exception: a surviving identical
  //    re-announcement of a live symbol keeps the live one (and is dropped);
  //    no other survivor can overlap it, since survivors are disjoint.
  std::vector<char> liveDead(live_.size(), 0);
  auto overlappingLive = [&](const Symbol &s) {
    auto it = std::upper_bound(live_.begin(), live_.end(), s.address,
                               [](uint64_t a, const Symbol &l) { return a < l.address; });
    if (it != live_.begin() && std::prev(it)->end() > s.address)
      --it;
    size_t first = static_cast<size_t>(it - live_.begin()), last = first;
    while (last < live_.size() && live_[last].address < s.end())
      ++last;
    return std::make_pair(first, last);
  };
  for (int pass = 0; pass < 2 && !live_.empty(); ++pass) {
    for (size_t i = 0; i < batch.size(); ++i) {
      if (bool(dead[i]) != (pass == 0))
        continue; // pass 0: batch casualties; pass 1: survivors
      auto [first, last] = overlappingLive(batch[i]);
      if (pass == 1 && last == first + 1 && identical(live_[first], batch[i])) {
        // The same code announced again ends the batch with the content LLDB
        // already has, whatever the batch did to it in between: keep it.
        if (liveDead[first]) {
          liveDead[first] = 0;
          --replaced_;
        }
        dead[i] = 1;
        deadNameBytes_ += batch[i].nameSize;
        continue;
      }
      for (size_t k = first; k < last; ++k)
        if (!liveDead[k]) {
          liveDead[k] = 1;
          ++replaced_;
        }
    }
  }

  // 4. Merge the two sorted, now disjoint, sets. On a first load nothing is
  //    live: the batch's survivors are the table.
  if (live_.empty()) {
    size_t kept = static_cast<size_t>(std::find(dead.begin(), dead.end(), 1) - dead.begin());
    for (size_t i = kept; i < batch.size(); ++i)
      if (!dead[i])
        batch[kept++] = batch[i];
    batch.resize(kept);
    live_.swap(batch);
    addedSinceLoad_ = true;
    nameIndexValid_ = false;
    return;
  }
  // Nothing live removed (the usual sync: new code only): merge in place from
  // the back, so only the entries above the lowest new address move.
  if (std::find(liveDead.begin(), liveDead.end(), 1) == liveDead.end()) {
    size_t survivors = 0;
    for (size_t i = 0; i < batch.size(); ++i)
      survivors += !dead[i];
    size_t a = live_.size(), b = batch.size();
    live_.resize(live_.size() + survivors);
    size_t w = live_.size();
    while (b > 0) {
      if (dead[b - 1]) {
        --b;
        continue;
      }
      if (a > 0 && live_[a - 1].address > batch[b - 1].address) {
        live_[--w] = live_[--a];
      } else {
        pendingAdded_.push_back(batch[b - 1].address);
        live_[--w] = batch[--b];
      }
    }
    nameIndexValid_ = false;
    return;
  }
  BigArray<Symbol> merged;
  merged.reserve(live_.size() + batch.size());
  size_t a = 0, b = 0;
  while (a < live_.size() || b < batch.size()) {
    if (a < live_.size() && liveDead[a]) {
      recordRemoval(live_[a++]);
      continue;
    }
    if (b < batch.size() && dead[b]) {
      ++b;
      continue;
    }
    if (b == batch.size() || (a < live_.size() && live_[a].address < batch[b].address)) {
      merged.push_back(live_[a++]);
    } else {
      pendingAdded_.push_back(batch[b].address);
      merged.push_back(batch[b++]);
    }
  }
  live_.swap(merged);
  nameIndexValid_ = false;
}

void SymbolTable::assign(SymbolTable &&other) {
  flush();
  other.flush();
  // Identical symbols keep their identity; everything else is a removal or an
  // addition.
  BigArray<Symbol> result;
  result.reserve(other.live_.size());
  size_t mine = 0;
  for (const Symbol &theirs : other.live_) {
    while (mine < live_.size() && live_[mine].address < theirs.address)
      recordRemoval(live_[mine++]);
    if (mine < live_.size() && live_[mine].address == theirs.address &&
        live_[mine].size == theirs.size && name(live_[mine]) == other.name(theirs)) {
      result.push_back(live_[mine++]);
      continue;
    }
    if (mine < live_.size() && live_[mine].address == theirs.address)
      recordRemoval(live_[mine++]);
    Symbol fresh = theirs;
    fresh.sequence = nextSequence_++;
    fresh.nameOffset = storeName(other.name(theirs));
    pendingAdded_.push_back(fresh.address);
    result.push_back(fresh);
  }
  while (mine < live_.size())
    recordRemoval(live_[mine++]);
  live_.swap(result);
  nameIndexValid_ = false;
  other.clear();
  other.takeChanges();
}

void SymbolTable::clear() {
  flush();
  for (const Symbol &symbol : live_)
    recordRemoval(symbol);
  live_.clear();
  names_.clear();
  deadNameBytes_ = 0;
  nameIndexValid_ = false;
}

size_t SymbolTable::size() const {
  flush();
  return live_.size();
}

uint64_t SymbolTable::replacedCount() const {
  flush();
  return replaced_;
}

const Symbol *SymbolTable::findByAddress(uint64_t address) const {
  flush();
  auto it = std::upper_bound(live_.begin(), live_.end(), address,
                             [](uint64_t a, const Symbol &s) { return a < s.address; });
  if (it == live_.begin())
    return nullptr;
  --it;
  return address < it->end() ? &*it : nullptr;
}

std::vector<const Symbol *> SymbolTable::findByName(std::string_view wanted) const {
  flush();
  if (!nameIndexValid_) {
    nameIndex_.resize(live_.size());
    std::iota(nameIndex_.begin(), nameIndex_.end(), 0u);
    std::sort(nameIndex_.begin(), nameIndex_.end(), [&](uint32_t a, uint32_t b) {
      std::string_view na = name(live_[a]), nb = name(live_[b]);
      return na != nb ? na < nb : a < b;
    });
    nameIndexValid_ = true;
  }
  auto lower = std::lower_bound(
      nameIndex_.begin(), nameIndex_.end(), wanted,
      [&](uint32_t a, std::string_view n) { return name(live_[a]) < n; });
  std::vector<const Symbol *> found;
  for (auto it = lower; it != nameIndex_.end() && name(live_[*it]) == wanted; ++it)
    found.push_back(&live_[*it]);
  return found;
}

void SymbolTable::forEachInRange(uint64_t begin, uint64_t end,
                                 llvm::function_ref<void(const Symbol &)> fn) const {
  flush();
  auto it = std::lower_bound(live_.begin(), live_.end(), begin,
                             [](const Symbol &s, uint64_t a) { return s.address < a; });
  for (; it != live_.end() && it->address < end; ++it)
    fn(*it);
}

void SymbolTable::forEach(llvm::function_ref<void(const Symbol &)> fn) const {
  flush();
  for (const Symbol &symbol : live_)
    fn(symbol);
}

SymbolChanges SymbolTable::takeChanges() {
  flush();
  SymbolChanges changes;
  changes.removed = std::move(pendingRemoved_);
  pendingRemoved_.clear();
  if (addedSinceLoad_ || pendingAdded_.size() > live_.size() / 8) {
    // Most of the table is new: one scan beats looking each addition up.
    for (const Symbol &symbol : live_)
      if (symbol.sequence > publishedSequence_)
        changes.added.push_back(&symbol);
  } else {
    std::sort(pendingAdded_.begin(), pendingAdded_.end());
    // One pass over both sorted lists; additions replaced again before anyone
    // saw them are skipped.
    auto it = live_.begin();
    for (uint64_t address : pendingAdded_) {
      it = std::lower_bound(it, live_.end(), address,
                            [](const Symbol &s, uint64_t a) { return s.address < a; });
      if (it != live_.end() && it->address == address && it->sequence > publishedSequence_ &&
          (changes.added.empty() || changes.added.back() != &*it))
        changes.added.push_back(&*it);
    }
  }
  markPublished();
  return changes;
}

void SymbolTable::forgetChanges() {
  flush();
  pendingRemoved_.clear();
  markPublished();
}

void SymbolTable::markPublished() {
  pendingAdded_.clear();
  addedSinceLoad_ = false;
  publishedSequence_ = nextSequence_ - 1;
  compactNamesIfWasteful();
}

void SymbolTable::compactNamesIfWasteful() {
  // Replaced symbols leave their names behind; rebuild once they dominate.
  if (deadNameBytes_ < (1u << 20) || deadNameBytes_ * 2 < names_.size())
    return;
  BigArray<char> compact;
  compact.reserve(names_.size() - deadNameBytes_);
  for (Symbol &symbol : live_) {
    uint64_t offset = compact.size();
    std::string_view text = name(symbol);
    compact.insert(compact.end(), text.begin(), text.end());
    symbol.nameOffset = offset;
  }
  names_.swap(compact);
  deadNameBytes_ = 0;
}

size_t SymbolTable::memoryBytes() const {
  return (live_.capacity() + pending_.capacity()) * sizeof(Symbol) + names_.capacity() +
         nameIndex_.capacity() * sizeof(uint32_t) + pendingAdded_.capacity() * sizeof(uint64_t);
}

} // namespace jitsym
