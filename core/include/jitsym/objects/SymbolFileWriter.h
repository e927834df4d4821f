// LLDB JSON symbol files (seed 003): triple, uuid, type "jit", sections, symbols.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

struct SectionSpec {
  std::string name;
  uint64_t address = 0;
  uint64_t size = 0;
  bool read = true, write = false, execute = true;
};

struct SymbolFileSpec {
  std::string triple;
  std::string uuid; // RFC 4122 text
  std::string type = "jit";
  std::vector<SectionSpec> sections;
};

// Renders the file. `symbols` are entries of `table`; names that are not valid
// UTF-8 have the offending bytes replaced (JSON text must be UTF-8). The size
// is never one LLDB misreads (see lldbMisreadsJsonOfSize). The symbols and
// their aliases are lldbSymbolsOf's. A symbol `isData` says is data gets
// "type": "data": LLDB names its addresses but resolves no breakpoint by name
// or regex there (checked on LLDB 22), so no trap is ever written into what is
// not code.
std::string renderSymbolFile(const SymbolFileSpec &spec, const SymbolTable &table,
                             const std::vector<const Symbol *> &symbols,
                             SymbolPredicate isData = nullptr);

// LLDB's JSON object-file plugin (through at least 22) takes the length of a
// mapped JSON file with strlen: a file of 16 KiB or more whose size is an
// exact multiple of the page size is read past its end, its UUID is lost and
// `target symbols add` answers "multiple modules match". A rendered file of
// such a size gets one more byte of whitespace.
bool lldbMisreadsJsonOfSize(uint64_t bytes);

// The sections of a JSON file that describes `regions` (named .jit0, .jit1, ...).
// They stay code sections when they hold data symbols: LLDB 22 resolves symbols
// by the symbol's type, not the section's (a JSON symbol file's sections are
// not even the module's), so the symbol type is what keeps breakpoints off.
std::vector<SectionSpec> sectionsOf(const std::vector<PlannedRegion> &regions);

} // namespace jitsym
