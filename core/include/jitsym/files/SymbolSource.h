// Loading whole symbol sources (perf maps and jitdumps) into a table, with their
// diagnostics: what the CLI and offline tools use.
#pragma once

#include <string>
#include <vector>

#include "jitsym/base/Diagnostic.h"
#include "jitsym/symbols/JitTables.h"
#include "llvm/Support/Error.h"

namespace jitsym {

enum class SourceFormat { PerfMap, Jitdump };

struct LoadedSymbols {
  SourceFormat format = SourceFormat::PerfMap; // of the last source loaded
  JitTables tables;           // unwind tables only when asked for
  std::string architecture;   // from a jitdump's header ("x86_64"); else empty
  std::vector<Diagnostic> diagnostics;
  uint64_t entries = 0;       // lines or CODE_LOAD records that announced a symbol
  uint64_t pendingBytes = 0;  // unterminated last line or record, ignored
};

struct LoadOptions {
  bool unwindTables = false; // decode a jitdump's CODE_UNWINDING_INFO
};

// Reads `path` completely. Fails only when the file cannot be used at all.
llvm::Expected<LoadedSymbols> loadPerfMap(const std::string &path);
llvm::Expected<LoadedSymbols> loadJitdump(const std::string &path, LoadOptions options = {});
// Either, told apart by the content (a jitdump starts with its magic).
llvm::Expected<LoadedSymbols> loadSymbols(const std::string &path, LoadOptions options = {});
// Several sources of one process into one table, in order: a later
// announcement of the same code wins, so a jitdump given after the perf map
// names what both announce (as jit-sync does).
llvm::Expected<LoadedSymbols> loadSymbols(const std::vector<std::string> &paths,
                                          LoadOptions options = {});

} // namespace jitsym
