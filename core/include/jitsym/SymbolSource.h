// Loading a whole symbol source (a perf map or a jitdump) into a table, with its
// diagnostics: what the CLI and offline tools use.
#pragma once

#include <string>
#include <vector>

#include "jitsym/Diagnostic.h"
#include "jitsym/LineTables.h"
#include "jitsym/SymbolTable.h"
#include "llvm/Support/Error.h"

namespace jitsym {

enum class SourceFormat { PerfMap, Jitdump };

struct LoadedSymbols {
  SourceFormat format = SourceFormat::PerfMap;
  SymbolTable table;
  LineTables lines;           // a jitdump's source lines
  std::string architecture;   // from a jitdump's header ("x86_64"); else empty
  std::vector<Diagnostic> diagnostics;
  uint64_t entries = 0;       // lines or CODE_LOAD records that announced a symbol
  uint64_t pendingBytes = 0;  // unterminated last line or record, ignored
};

// Reads `path` completely. Fails only when the file cannot be used at all.
llvm::Expected<LoadedSymbols> loadPerfMap(const std::string &path);
llvm::Expected<LoadedSymbols> loadJitdump(const std::string &path);
// Either, told apart by the content (a jitdump starts with its magic).
llvm::Expected<LoadedSymbols> loadSymbols(const std::string &path);

} // namespace jitsym
