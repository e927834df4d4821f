// Symbol table: batched announcements, "later overlapping announcement wins",
// change tracking.
#include "jitsym/symbols/SymbolTable.h"

#include "jitsym/base/Parallel.h"

#include <algorithm>
#include <cstdint>
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

} // namespace

std::string_view boundedSymbolName(std::string_view name) {
  if (name.size() <= kMaxSymbolNameBytes)
    return name;
  size_t cut = kMaxSymbolNameBytes;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80)
    --cut; // not inside a UTF-8 character
  return name.substr(0, cut);
}

void SymbolTable::add(uint64_t address, uint64_t size, std::string_view name, uint32_t flags) {
  assert((flags & ~kOwnedFlag) == 0 && "add() takes only kOwnedFlag");
  name = boundedSymbolName(name);
  Symbol symbol;
  if (holdsName(name)) {
    if (!describe(address, size, name, symbol))
      return;
  } else {
    if (address + (size ? size : 1) <= address)
      return; // wraps past the top of the address space: no code lives there
    symbol = {address, size, 0, storeName(name), static_cast<uint32_t>(name.size()), 0};
  }
  symbol.flags = flags & kOwnedFlag;
  if (pending_.empty())
    pending_.emplace_back();
  pending_.back().push_back(symbol);
}

bool SymbolTable::describe(uint64_t address, uint64_t size, std::string_view heldName,
                           Symbol &symbol) const {
  assert(holdsName(heldName) && "describe() takes names already in the storage");
  if (address + (size ? size : 1) <= address)
    return false;
  heldName = boundedSymbolName(heldName);
  symbol = {address, size, 0, static_cast<uint64_t>(heldName.data() - names_.data()),
            static_cast<uint32_t>(heldName.size()), 0};
  return true;
}

void SymbolTable::remove(uint64_t address, uint64_t size) {
  if (address + (size ? size : 1) <= address)
    return;
  if (pending_.empty())
    pending_.emplace_back();
  pending_.back().push_back({address, size, 0, 0, 0, kRemovalFlag});
}

void SymbolTable::addBatch(BigArray<Symbol> &&batch) {
  if (!batch.empty())
    pending_.push_back(std::move(batch));
  batch = BigArray<Symbol>();
}

void SymbolTable::reserve(size_t symbols) {
  if (pending_.empty())
    pending_.emplace_back();
  pending_.back().reserve(pending_.back().size() + symbols);
}

char *SymbolTable::growNameStorage(size_t bytes) {
  const size_t offset = names_.size();
  // Room to grow: the next syncs append without moving what is already held.
  if (names_.capacity() < offset + bytes)
    names_.reserve(withHeadroom(offset + bytes));
  names_.resize(offset + bytes);
  return names_.data() + offset;
}

void SymbolTable::shrinkNameStorage(size_t bytes) {
  names_.resize(names_.size() - std::min(bytes, names_.size()));
}

bool SymbolTable::holdsName(std::string_view text) const {
  const auto at = reinterpret_cast<uintptr_t>(text.data());
  const auto begin = reinterpret_cast<uintptr_t>(names_.data());
  return !names_.empty() && at >= begin && at + text.size() <= begin + names_.size();
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
  noteOwnedGone(symbol);
}

void SymbolTable::reportOwnedGone() const {
  if (ownedGoneStarts_.empty())
    return;
  // Taken first: the handler may query the table, which comes back here.
  std::vector<uint64_t> starts;
  starts.swap(ownedGoneStarts_);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  // An owned symbol still starting there (the same code announced again, or
  // new code of the same announcer, which set its own data) keeps the data.
  auto it = live_.begin();
  for (uint64_t start : starts) {
    it = std::lower_bound(it, live_.end(), start,
                          [](const Symbol &s, uint64_t a) { return s.address < a; });
    if (it != live_.end() && it->address == start && (it->flags & kOwnedFlag))
      continue;
    ownedGone_(start);
  }
}

void SymbolTable::flush() const {
  applyPending();
  reportOwnedGone();
}

void SymbolTable::applyPending() const {
  const PendingView view(pending_);
  if (view.size() == 0)
    return;
  // 1. The batch in address order (announcement order among equal addresses),
  //    numbered. Runtimes mostly announce rising addresses, so check before
  //    sorting.
  const uint64_t firstSequence = nextSequence_;
  nextSequence_ += view.size();
  BigArray<Symbol> batch = view.inAddressOrder() ? concatenate(pending_, firstSequence)
                                                 : sortByAddress(view, firstSequence);
  pending_.clear();

  // 2. Inside the batch, a symbol survives unless a later one overlaps it.
  std::vector<char> dead = batchCasualties(batch);
  for (size_t i = 0; i < batch.size(); ++i)
    if (dead[i] && !(batch[i].flags & kRemovalFlag)) {
      deadNameBytes_ += batch[i].nameSize;
      ++replaced_;
      noteOwnedGone(batch[i]);
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

  // Removals have done their work: they never become live.
  for (size_t i = 0; i < batch.size(); ++i)
    if (batch[i].flags & kRemovalFlag)
      dead[i] = 1;

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
  reportOwnedGone();
}

void SymbolTable::clear() {
  flush();
  for (const Symbol &symbol : live_)
    recordRemoval(symbol);
  live_.clear();
  names_.clear();
  deadNameBytes_ = 0;
  nameIndexValid_ = false;
  reportOwnedGone();
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

llvm::ArrayRef<Symbol> SymbolTable::startingIn(uint64_t begin, uint64_t end) const {
  flush();
  auto byStart = [](const Symbol &s, uint64_t a) { return s.address < a; };
  auto first = std::lower_bound(live_.begin(), live_.end(), begin, byStart);
  auto last = std::lower_bound(first, live_.end(), end, byStart);
  if (first == last)
    return {};
  return llvm::ArrayRef<Symbol>(&*first, static_cast<size_t>(last - first));
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
  size_t symbols = live_.capacity();
  for (const BigArray<Symbol> &batch : pending_)
    symbols += batch.capacity();
  return symbols * sizeof(Symbol) + names_.capacity() +
         nameIndex_.capacity() * sizeof(uint32_t) + pendingAdded_.capacity() * sizeof(uint64_t);
}

} // namespace jitsym
