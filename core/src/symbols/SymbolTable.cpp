// Symbol table: batched announcements, "later overlapping announcement wins",
// change tracking.
#include "jitsym/symbols/SymbolTable.h"

#include "PendingBatches.h"

#include "jitsym/base/Parallel.h"

#include <algorithm>
#include <cstdint>
#include <cassert>
#include <cstring>
#include <map>
#include <numeric>

namespace jitsym {

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
      if (pass == 1 && last == first + 1 && sameContent(live_[first], batch[i])) {
        // The same code announced again ends the batch with the content LLDB
        // already has, whatever the batch did to it in between: keep it.
        live_[first].flags |= batch[i].flags & kOwnedFlag;
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
