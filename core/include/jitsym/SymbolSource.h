// Loading a whole symbol source (a perf map) into a table, with its diagnostics:
// what the CLI and offline tools use.
#pragma once

#include <string>
#include <vector>

#include "jitsym/Diagnostic.h"
#include "jitsym/SymbolTable.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct LoadedSymbols {
  SymbolTable table;
  std::vector<Diagnostic> diagnostics;
  uint64_t entries = 0;       // lines that announced a symbol
  uint64_t pendingBytes = 0;  // unterminated last line, ignored
};

// Reads `path` completely. Fails only when the file cannot be used at all.
llvm::Expected<LoadedSymbols> loadPerfMap(const std::string &path);

} // namespace jitsym
