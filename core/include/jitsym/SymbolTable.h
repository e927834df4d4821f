// The live JIT symbols of one process: non-overlapping ranges kept in address
// order, where a later announcement that overlaps earlier ones replaces them
// (the runtime freed that code and reused the memory).
//
// Announcements are batched: add() only records them, and the next query (or
// takeChanges) applies the whole batch with one sort and one merge into a flat
// sorted array. That keeps a million-line map cheap to index (40 bytes a symbol
// plus its name) and an incremental batch cheap to apply.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/BigArray.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace jitsym {

struct Symbol {
  uint64_t address = 0;
  uint64_t size = 0;        // as announced; 0 is allowed
  uint64_t sequence = 0;    // announcement order, 1-based
  uint64_t nameOffset = 0;  // into the table's name storage
  uint32_t nameSize = 0;

  // A zero-size symbol still occupies its first byte.
  uint64_t end() const { return address + (size ? size : 1); }
};

// A range whose symbol the debugger already knows but which is now gone.
struct RemovedRange {
  uint64_t address;
  uint64_t end;
};

// What changed since the last takeChanges(): the ranges of published symbols that
// were removed, and the live symbols announced since.
struct SymbolChanges {
  std::vector<RemovedRange> removed;
  std::vector<const Symbol *> added; // in address order
  bool empty() const { return removed.empty() && added.empty(); }
};

class SymbolTable {
public:
  // Announces a symbol. A symbol survives unless a later announcement overlaps
  // it; re-announcing an identical live symbol changes nothing. A range that
  // would wrap past the top of the address space is ignored.
  void add(uint64_t address, uint64_t size, std::string_view name);

  // Announces the symbols `later` has been given (and not yet applied), in
  // order, after every symbol announced here; `later` ends up empty.
  void addAll(SymbolTable &&later);

  // Replaces the whole content with `other` (a re-read of a rewritten map),
  // recording only the differences as changes.
  void assign(SymbolTable &&other);

  void clear();

  const Symbol *findByAddress(uint64_t address) const;
  std::vector<const Symbol *> findByName(std::string_view name) const;
  // Live symbols whose start lies in [begin, end), in address order.
  void forEachInRange(uint64_t begin, uint64_t end,
                      llvm::function_ref<void(const Symbol &)> fn) const;
  void forEach(llvm::function_ref<void(const Symbol &)> fn) const;

  std::string_view name(const Symbol &symbol) const {
    return std::string_view(names_.data() + symbol.nameOffset, symbol.nameSize);
  }
  size_t size() const;
  // Symbols removed because a later announcement overlapped them.
  uint64_t replacedCount() const;

  // Changes since the previous call; the symbols returned stay valid until the
  // next call to add, assign or clear.
  SymbolChanges takeChanges();
  // Same as takeChanges() for a caller that does not need the list.
  void forgetChanges();

  // Bytes held (symbols, names, indexes), for the memory budget.
  size_t memoryBytes() const;

  // Reserves room ahead of a large load, so the table grows without copying.
  void reserve(size_t symbols, size_t nameBytes) {
    pending_.reserve(pending_.size() + symbols);
    names_.reserve(names_.size() + nameBytes);
  }

private:
  void flush() const;
  bool identical(const Symbol &a, const Symbol &b) const {
    return a.address == b.address && a.size == b.size && name(a) == name(b);
  }
  void recordRemoval(const Symbol &symbol) const;
  uint64_t storeName(std::string_view text);
  void markPublished();
  void compactNamesIfWasteful();

  // Mutable: queries apply the pending batch first.
  mutable BigArray<Symbol> live_;    // sorted by address, non-overlapping
  mutable BigArray<Symbol> pending_; // announcement order
  mutable std::vector<uint64_t> pendingAdded_; // addresses of new live symbols
  mutable bool addedSinceLoad_ = false; // a whole batch became the table
  mutable std::vector<RemovedRange> pendingRemoved_;
  mutable uint64_t deadNameBytes_ = 0;
  mutable uint64_t replaced_ = 0;
  mutable std::vector<uint32_t> nameIndex_; // positions in live_, by name
  mutable bool nameIndexValid_ = false;
  BigArray<char> names_;
  uint64_t nextSequence_ = 1;
  uint64_t publishedSequence_ = 0; // symbols up to here were handed out
};

} // namespace jitsym
