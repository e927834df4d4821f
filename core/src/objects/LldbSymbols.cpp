// Full names, data flags and typed aliases, decided once for every file LLDB reads.
#include "jitsym/objects/LldbSymbols.h"

#include "jitsym/symbols/RuntimeNames.h"

namespace jitsym {

std::vector<LldbSymbol> lldbSymbolsOf(const SymbolTable &table,
                                      const std::vector<const Symbol *> &symbols,
                                      SymbolPredicate isData) {
  std::vector<LldbSymbol> out;
  out.reserve(symbols.size());
  for (const Symbol *symbol : symbols) {
    const std::string_view name = table.name(*symbol);
    const bool data = isData && isData(*symbol);
    out.push_back({std::string(name), symbol->address, symbol->size, data});
    if (!data)
      if (std::string typed = nameAsTyped(name); !typed.empty())
        out.push_back({std::move(typed), symbol->address, symbol->size, false});
  }
  return out;
}

} // namespace jitsym
