// Feeds perf map entries into a SymbolTable and keeps the diagnostics.
#pragma once

#include <vector>

#include "jitsym/PerfMapReader.h"
#include "jitsym/SymbolTable.h"

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
    // Real perf map lines average 50-100 bytes; names are most of a line.
    (rewriting_ ? fresh_ : table_).reserve(bytes / 48, bytes);
  }
  void onEntry(const PerfMapEntry &entry) override {
    (rewriting_ ? fresh_ : table_).add(entry.address, entry.size, entry.name);
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
  SymbolTable &table_;
  SymbolTable fresh_;
  bool rewriting_ = false;
};

// Collects the second part of a large read into a table of its own (the base
// that holds it is built first, so TableSink can refer to it).
struct OwnedTable {
  SymbolTable table;
};
class PartTableSink : public OwnedTable, public TableSink {
public:
  PartTableSink() : TableSink(table) {}
};

inline std::unique_ptr<PerfMapSink> TableSink::makePartSink() {
  return std::make_unique<PartTableSink>();
}

inline void TableSink::appendPart(PerfMapSink &part, uint64_t linesBefore) {
  auto &collected = static_cast<PartTableSink &>(part);
  (rewriting_ ? fresh_ : table_).addAll(std::move(collected.table));
  for (Diagnostic &diagnostic : collected.diagnostics) {
    diagnostic.line += linesBefore;
    diagnostics.push_back(std::move(diagnostic));
  }
}

} // namespace jitsym
