// The live JIT symbols of one process: non-overlapping ranges kept in address
// order, where a later announcement that overlaps earlier ones replaces them
// (the runtime freed that code and reused the memory).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "llvm/ADT/STLFunctionalExtras.h"

namespace jitsym {

struct Symbol {
  uint64_t address = 0;
  uint64_t size = 0;        // as announced; 0 is allowed
  uint64_t sequence = 0;    // announcement order, 1-based
  uint64_t nameOffset = 0;  // into the table's name storage
  uint32_t nameSize = 0;

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
  enum class AddResult { Added, Replaced, Unchanged };

  // Announces a symbol. An identical live symbol is left as it is; any live
  // symbol that overlaps the new range is removed.
  AddResult add(uint64_t address, uint64_t size, std::string_view name);

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
    return std::string_view(names_).substr(symbol.nameOffset, symbol.nameSize);
  }
  size_t size() const { return symbols_.size(); }
  uint64_t replacedCount() const { return replaced_; }

  // Changes since the previous call; the symbols returned stay valid until the
  // next call to add, assign or clear.
  SymbolChanges takeChanges();

  // Bytes held, for the memory budget (symbols, tree nodes, names).
  size_t memoryBytes() const;

private:
  void removeSymbol(std::map<uint64_t, Symbol>::iterator it);
  void compactNamesIfWasteful();

  std::map<uint64_t, Symbol> symbols_; // keyed by address
  std::string names_;
  uint64_t deadNameBytes_ = 0;
  uint64_t nextSequence_ = 1;
  uint64_t publishedSequence_ = 0;  // symbols up to here were handed out
  uint64_t replaced_ = 0;
  std::vector<RemovedRange> pendingRemoved_;
  std::vector<uint64_t> pendingAdded_; // addresses, may be stale

  mutable std::vector<uint64_t> nameIndex_; // addresses sorted by name
  mutable bool nameIndexValid_ = false;
};

} // namespace jitsym
