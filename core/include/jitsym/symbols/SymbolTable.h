// The live JIT symbols of one process: non-overlapping ranges kept in address
// order, where a later announcement that overlaps earlier ones replaces them
// (the runtime freed that code and reused the memory).
//
// Announcements are batched: add() only records them, and the next query (or
// takeChanges) applies the whole batch with one sort and one merge into a flat
// sorted array. That keeps a million-line map cheap to index (40 bytes a symbol
// plus its name) and an incremental batch cheap to apply. A reader can also put
// file bytes straight into the name storage, so names are never copied.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/symbols/BigArray.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace jitsym {

// Trivial, so the big arrays of them are not zero-filled before being written.
struct Symbol {
  uint64_t address;
  uint64_t size;        // as announced; 0 is allowed
  uint64_t sequence;    // announcement order, 1-based (0 until applied)
  uint64_t nameOffset;  // into the table's name storage
  uint32_t nameSize;
  uint32_t flags;       // kRemovalFlag, kOwnedFlag

  // A zero-size symbol still occupies its first byte.
  uint64_t end() const { return address + (size ? size : 1); }
};

// Names are cut to this many bytes (at a UTF-8 character boundary): a file
// that names code with megabytes of text gets no further than this, into the
// table or into LLDB.
constexpr size_t kMaxSymbolNameBytes = 4096;
std::string_view boundedSymbolName(std::string_view name);

// Marks a pending announcement made by SymbolTable::remove(); never live.
constexpr uint32_t kRemovalFlag = 1;
// Marks a symbol whose announcer keeps data by its start address (a jitdump's
// line and unwind tables): the table tells it when that start has no such
// symbol any more (SymbolTable::onOwnedGone), so the data cannot outlive its code.
constexpr uint32_t kOwnedFlag = 2;

// A question asked of a symbol (is it data?, is it kept?).
using SymbolPredicate = llvm::function_ref<bool(const Symbol &)>;

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
  // would wrap past the top of the address space is ignored; a name is cut to
  // kMaxSymbolNameBytes. `flags` is 0 or kOwnedFlag; a live symbol announced
  // again with the other flag keeps its place and becomes owned if either was
  // (a runtime writing both a perf map and a jitdump names its code twice).
  void add(uint64_t address, uint64_t size, std::string_view name, uint32_t flags = 0);

  // Announces that the code in [address, address + size) is gone (a jitdump's
  // CODE_MOVE moved it away): the live symbols it overlaps are removed, as by
  // an add() there, but nothing takes their place.
  void remove(uint64_t address, uint64_t size);

  // Bulk loading without copying names: a reader reads file bytes straight into
  // the name storage, then announces symbols whose names lie in those bytes.
  // add() keeps no copy of such a name, and describe() lets another thread
  // collect symbols for addBatch(), as neither changes the storage.
  //
  // Room for `bytes` more bytes at the end of the name storage; valid until
  // the storage grows again.
  char *growNameStorage(size_t bytes);
  // Gives back the last `bytes` bytes of the storage (read, never announced).
  void shrinkNameStorage(size_t bytes);
  // The symbol add() would record for a name held in the storage; false for a
  // range that wraps past the top of the address space.
  bool describe(uint64_t address, uint64_t size, std::string_view heldName,
                Symbol &symbol) const;
  // Announces symbols made by describe(), in order, after every symbol
  // announced so far.
  void addBatch(BigArray<Symbol> &&batch);

  // Tells the announcer of kOwnedFlag symbols which starts lost them: whenever
  // the table drops such a symbol (a later overlapping announcement in the same
  // batch or a later one, remove(), assign() or clear()) and, once the change
  // is applied, no kOwnedFlag symbol starts at that address, `gone(address)` is
  // called (from the query, assign or clear that applied it). Only owned
  // symbols are tracked, so perf map loads pay nothing for it. One handler per
  // table; it outlives the announcer that set it (it may hold only what lives
  // as long as the data it prunes).
  void onOwnedGone(std::function<void(uint64_t start)> gone) { ownedGone_ = std::move(gone); }

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
  // The live symbols whose start lies in [begin, end), in address order; valid
  // until the table changes.
  llvm::ArrayRef<Symbol> startingIn(uint64_t begin, uint64_t end) const;

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

  // Reserves room for the symbols of a large load, so the table grows without
  // copying.
  void reserve(size_t symbols);

private:
  void flush() const;
  void applyPending() const;
  // The same code under the same name: what LLDB is given is the same,
  // whoever announced it (the flags say who).
  bool sameContent(const Symbol &a, const Symbol &b) const {
    return a.address == b.address && a.size == b.size && name(a) == name(b);
  }
  void recordRemoval(const Symbol &symbol) const;
  void noteOwnedGone(const Symbol &symbol) const {
    if ((symbol.flags & kOwnedFlag) && ownedGone_)
      ownedGoneStarts_.push_back(symbol.address);
  }
  void reportOwnedGone() const;
  uint64_t storeName(std::string_view text);
  bool holdsName(std::string_view text) const;
  void markPublished();
  void compactNamesIfWasteful();

  // Mutable: queries apply the pending batch first.
  mutable BigArray<Symbol> live_;    // sorted by address, non-overlapping
  // Batches of announcements not yet applied, each and all in announcement order.
  mutable std::vector<BigArray<Symbol>> pending_;
  mutable std::vector<uint64_t> pendingAdded_; // addresses of new live symbols
  mutable bool addedSinceLoad_ = false; // a whole batch became the table
  mutable std::vector<RemovedRange> pendingRemoved_;
  std::function<void(uint64_t)> ownedGone_;
  mutable std::vector<uint64_t> ownedGoneStarts_; // owned symbols dropped, not yet reported
  mutable uint64_t deadNameBytes_ = 0;
  mutable uint64_t replaced_ = 0;
  mutable std::vector<uint32_t> nameIndex_; // positions in live_, by name
  mutable bool nameIndexValid_ = false;
  BigArray<char> names_;
  mutable uint64_t nextSequence_ = 1; // numbers pending symbols as they are applied
  uint64_t publishedSequence_ = 0; // symbols up to here were handed out
};

} // namespace jitsym
