// Feeds perf map entries into a SymbolTable and keeps the diagnostics. The file
// is read straight into the table's name storage, so names are not copied.
#pragma once

#include <vector>

#include "jitsym/files/PerfMapReader.h"
#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

class TableSink : public PerfMapSink {
public:
  explicit TableSink(SymbolTable &table) : table_(table) {}

  // A rewritten file is collected into a fresh table and swapped in at finish(),
  // so that only real differences reach the debugger.
  void onRewrite() override {
    rewriting_ = true;
    fresh_.clear();
  }
  void onSizeHint(uint64_t bytes) override {
    // Real perf map lines average 50-100 bytes.
    target().reserve(bytes / 48);
  }
  char *beginRead(uint64_t bytes) override { return target().growNameStorage(bytes); }
  void endRead(uint64_t unusedBytes) override { target().shrinkNameStorage(unusedBytes); }
  void onEntry(const PerfMapEntry &entry) override {
    target().add(entry.address, entry.size, entry.name);
  }
  void onDiagnostic(const Diagnostic &diagnostic) override {
    diagnostics.push_back(diagnostic);
  }
  std::unique_ptr<PerfMapSink> makePartSink() override;
  void appendPart(PerfMapSink &part, uint64_t linesBefore) override;
  void finish() {
    if (rewriting_)
      table_.assign(std::move(fresh_));
    rewriting_ = false;
  }

  std::vector<Diagnostic> diagnostics;

private:
  SymbolTable &target() { return rewriting_ ? fresh_ : table_; }

  SymbolTable &table_;
  SymbolTable fresh_;
  bool rewriting_ = false;
};

// Collects the second part of a large read on its own thread: symbols whose
// names are in the table's storage already, handed over whole by appendPart.
class PartTableSink : public PerfMapSink {
public:
  explicit PartTableSink(const SymbolTable &table) : table_(table) {}
  void onRewrite() override {}
  void onSizeHint(uint64_t bytes) override { symbols.reserve(bytes / 48); }
  void onEntry(const PerfMapEntry &entry) override {
    Symbol symbol;
    if (table_.describe(entry.address, entry.size, entry.name, symbol))
      symbols.push_back(symbol);
  }
  void onDiagnostic(const Diagnostic &diagnostic) override {
    diagnostics.push_back(diagnostic);
  }

  BigArray<Symbol> symbols;
  std::vector<Diagnostic> diagnostics;

private:
  const SymbolTable &table_;
};

inline std::unique_ptr<PerfMapSink> TableSink::makePartSink() {
  return std::make_unique<PartTableSink>(target());
}

inline void TableSink::appendPart(PerfMapSink &part, uint64_t linesBefore) {
  auto &collected = static_cast<PartTableSink &>(part);
  target().addBatch(std::move(collected.symbols));
  for (Diagnostic &diagnostic : collected.diagnostics) {
    diagnostic.line += linesBefore;
    diagnostics.push_back(std::move(diagnostic));
  }
}

} // namespace jitsym
