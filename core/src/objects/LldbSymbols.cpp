// Full names, data flags and typed aliases, decided once for every file LLDB reads.
#include "jitsym/objects/LldbSymbols.h"

#include "jitsym/base/PrintableText.h"
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
    // Shown with its control characters escaped (PrintableText.h); the
    // runtime's own bytes follow as an alias, for a search that has them.
    out.push_back({printableText(name), symbol->address, symbol->size, data});
    if (!data)
      if (std::string typed = nameAsTyped(name); !typed.empty())
        out.push_back({printableText(typed), symbol->address, symbol->size, false});
    if (hasControlCharacters(name))
      out.push_back({std::string(name), symbol->address, symbol->size, data});
  }
  return out;
}

} // namespace jitsym
