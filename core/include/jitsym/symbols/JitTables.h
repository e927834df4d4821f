// What jitsym knows of one process's JIT code, as one value: its symbols, the
// source lines and the unwind tables the runtime gave for them. Filled live by
// a target's sync (the plugin's Sources) or at once offline (LoadedSymbols,
// files/SymbolSource.h), and handed whole to the planner, the debug objects and
// the exports.
#pragma once

#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/symbols/UnwindTables.h"

namespace jitsym {

struct JitTables {
  SymbolTable symbols;
  LineTables lines;   // a jitdump's CODE_DEBUG_INFO
  UnwindTables unwind; // a jitdump's CODE_UNWINDING_INFO, when kept

  void clear() {
    symbols.clear();
    lines.clear();
    unwind.clear();
  }
};

} // namespace jitsym
