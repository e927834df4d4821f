// Symbol table with the "later announcement wins" rule and change tracking.
#include "jitsym/SymbolTable.h"

#include <algorithm>
#include <tuple>

namespace jitsym {

SymbolTable::AddResult SymbolTable::add(uint64_t address, uint64_t size,
                                        std::string_view name) {
  const uint64_t end = address + (size ? size : 1);
  // First candidate: the symbol starting at or before `address`.
  auto it = symbols_.upper_bound(address);
  if (it != symbols_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end() > address)
      it = prev;
  }
  if (it != symbols_.end() && it->first == address &&
      it->second.size == size && this->name(it->second) == name) {
    auto next = std::next(it);
    if (next == symbols_.end() || next->first >= end)
      return AddResult::Unchanged; // re-announcement of the same code
  }
  bool replaced = false;
  while (it != symbols_.end() && it->first < end) {
    auto next = std::next(it);
    removeSymbol(it);
    replaced = true;
    it = next;
  }
  Symbol symbol;
  symbol.address = address;
  symbol.size = size;
  symbol.sequence = nextSequence_++;
  symbol.nameOffset = names_.size();
  symbol.nameSize = static_cast<uint32_t>(name.size());
  names_.append(name);
  symbols_.emplace_hint(it, address, symbol);
  pendingAdded_.push_back(address);
  nameIndexValid_ = false;
  if (replaced) {
    ++replaced_;
    return AddResult::Replaced;
  }
  return AddResult::Added;
}

void SymbolTable::removeSymbol(std::map<uint64_t, Symbol>::iterator it) {
  const Symbol &symbol = it->second;
  if (symbol.sequence <= publishedSequence_)
    pendingRemoved_.push_back({symbol.address, symbol.end()});
  deadNameBytes_ += symbol.nameSize;
  symbols_.erase(it);
  nameIndexValid_ = false;
}

void SymbolTable::assign(SymbolTable &&other) {
  // Walk both tables in address order: identical symbols keep their identity,
  // everything else is a removal or an addition.
  auto mine = symbols_.begin();
  std::vector<std::map<uint64_t, Symbol>::iterator> gone;
  std::vector<const Symbol *> fresh;
  for (const auto &[address, theirs] : other.symbols_) {
    while (mine != symbols_.end() && mine->first < address)
      gone.push_back(mine++);
    if (mine != symbols_.end() && mine->first == address &&
        mine->second.size == theirs.size &&
        name(mine->second) == other.name(theirs)) {
      ++mine;
      continue;
    }
    fresh.push_back(&theirs);
  }
  while (mine != symbols_.end())
    gone.push_back(mine++);
  for (auto it : gone)
    removeSymbol(it);
  for (const Symbol *symbol : fresh)
    add(symbol->address, symbol->size, other.name(*symbol));
  other.clear();
}

void SymbolTable::clear() {
  for (auto it = symbols_.begin(); it != symbols_.end();)
    removeSymbol(it++);
  names_.clear();
  deadNameBytes_ = 0;
}

const Symbol *SymbolTable::findByAddress(uint64_t address) const {
  auto it = symbols_.upper_bound(address);
  if (it == symbols_.begin())
    return nullptr;
  --it;
  return address < it->second.end() ? &it->second : nullptr;
}

std::vector<const Symbol *> SymbolTable::findByName(std::string_view wanted) const {
  if (!nameIndexValid_) {
    nameIndex_.clear();
    nameIndex_.reserve(symbols_.size());
    for (const auto &entry : symbols_)
      nameIndex_.push_back(entry.first);
    std::sort(nameIndex_.begin(), nameIndex_.end(), [&](uint64_t a, uint64_t b) {
      return std::make_tuple(name(symbols_.at(a)), a) <
             std::make_tuple(name(symbols_.at(b)), b);
    });
    nameIndexValid_ = true;
  }
  auto lower = std::lower_bound(
      nameIndex_.begin(), nameIndex_.end(), wanted,
      [&](uint64_t a, std::string_view n) { return name(symbols_.at(a)) < n; });
  std::vector<const Symbol *> found;
  for (auto it = lower; it != nameIndex_.end(); ++it) {
    const Symbol &symbol = symbols_.at(*it);
    if (name(symbol) != wanted)
      break;
    found.push_back(&symbol);
  }
  return found;
}

void SymbolTable::forEachInRange(uint64_t begin, uint64_t end,
                                 llvm::function_ref<void(const Symbol &)> fn) const {
  for (auto it = symbols_.lower_bound(begin);
       it != symbols_.end() && it->first < end; ++it)
    fn(it->second);
}

void SymbolTable::forEach(llvm::function_ref<void(const Symbol &)> fn) const {
  for (const auto &entry : symbols_)
    fn(entry.second);
}

SymbolChanges SymbolTable::takeChanges() {
  SymbolChanges changes;
  changes.removed = std::move(pendingRemoved_);
  pendingRemoved_.clear();
  for (uint64_t address : pendingAdded_) {
    auto it = symbols_.find(address);
    // Skip additions that were replaced again before anyone saw them.
    if (it != symbols_.end() && it->second.sequence > publishedSequence_)
      changes.added.push_back(&it->second);
  }
  pendingAdded_.clear();
  std::sort(changes.added.begin(), changes.added.end(),
            [](const Symbol *a, const Symbol *b) { return a->address < b->address; });
  changes.added.erase(std::unique(changes.added.begin(), changes.added.end()),
                      changes.added.end());
  publishedSequence_ = nextSequence_ - 1;
  compactNamesIfWasteful();
  return changes;
}

void SymbolTable::compactNamesIfWasteful() {
  // Replaced symbols leave their names behind; rebuild once they dominate.
  if (deadNameBytes_ < (1u << 20) || deadNameBytes_ * 2 < names_.size())
    return;
  std::string compact;
  compact.reserve(names_.size() - deadNameBytes_);
  for (auto &entry : symbols_) {
    Symbol &symbol = entry.second;
    uint64_t offset = compact.size();
    compact.append(name(symbol));
    symbol.nameOffset = offset;
  }
  names_.swap(compact);
  deadNameBytes_ = 0;
}

size_t SymbolTable::memoryBytes() const {
  // libstdc++ red-black node: 32 bytes of links plus key and value.
  constexpr size_t kNodeBytes = 32 + sizeof(uint64_t) + sizeof(Symbol);
  return symbols_.size() * kNodeBytes + names_.capacity() +
         nameIndex_.capacity() * sizeof(uint64_t);
}

} // namespace jitsym
