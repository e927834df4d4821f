// The symbols LLDB is given for symbols of the table, whichever file carries
// them (a JSON symbol file, or an object's .symtab): each under its full name,
// a data symbol as data, and a code symbol whose name a runtime decorated
// followed by an alias under the name users type (RuntimeNames.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

struct LldbSymbol {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
  bool data = false;
};

// Names are shown with their control characters escaped (PrintableText.h);
// a name that has some is followed by its raw bytes as one more alias.
// In the order of `symbols`, each alias right after its symbol: at one
// address and size LLDB names the address by the symbol listed first (checked
// on LLDB 22 for JSON files and ELF .symtab), so `bt` and `image lookup` keep
// the runtime's name while `breakpoint set -n` finds the typed one. Data
// symbols get no alias: nobody sets a breakpoint there.
std::vector<LldbSymbol> lldbSymbolsOf(const SymbolTable &table,
                                      const std::vector<const Symbol *> &symbols,
                                      SymbolPredicate isData = nullptr);

} // namespace jitsym
