// A debug object for a JIT window: DWARF that gives LLDB the source lines of JIT
// code (image lookup, bt, breakpoint set -f FILE -l LINE) and its unwind tables.
//
// Why: LLDB's JSON symbol files carry no line tables, so lines reach LLDB the
// way `perf inject --jit` gives them to perf: an ELF with .debug_info and
// .debug_line. It carries the window's build-id and the same .text section as
// the window's unwind object, and LLDB takes it with `target symbols add`.
// While it is the module's symbol file LLDB finds functions by name in its
// DWARF only, so every function of the window gets a DW_TAG_subprogram, with
// lines or without.
#pragma once

#include <cstdint>
#include <string>

#include "jitsym/arch/Architecture.h"
#include <string_view>
#include <vector>

#include "jitsym/objects/ElfImage.h"
#include "jitsym/objects/LldbSymbols.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/symbols/JitTables.h"
#include "jitsym/plan/Uuid.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct DebugFunction {
  uint64_t start = 0;
  uint64_t end = 0; // exclusive
  std::string_view name;
};

// Whether a line entry can be true (see SourceFiles.h); the addresses of an
// entry that cannot are left out of the line program, so they show no line
// rather than a wrong one.
using LinePlausible = llvm::function_ref<bool(std::string_view file, uint32_t line)>;

// The functions of the tables' symbols that start in `text` (their ends
// clipped to it), and whether any of them has source lines or an unwind table.
// Symbols `isData` says are data are no functions: a DW_TAG_subprogram would
// let a breakpoint resolve there whatever the JSON symbol's type.
std::vector<DebugFunction> debugFunctionsIn(const JitTables &tables, const AddressRange &text,
                                            bool &anyDebugInfo, SymbolPredicate isData = nullptr);

// The DWARF of a debug object: .debug_abbrev, .debug_info, .debug_line and,
// when a function has an unwind table, .debug_frame. A live module's object
// carries them itself when its region has lines as it is made (UnwindObject.h).
llvm::Expected<std::vector<ElfSection>> buildDebugSections(
    const AddressRange &text, std::string_view unitName,
    const std::vector<DebugFunction> &functions, const JitTables &tables,
    LinePlausible plausible = nullptr);

// `functions` in any order; their lines come from `tables.lines` (entries
// outside the function are dropped, and so are those of a file without a name)
// and their unwind tables from `tables.unwind`. The name of the compile unit is `unitName`.
// Names are written up to their first NUL, where DWARF strings end.
// `symbols`, for a live module whose object carries the window's symbols in
// its .symtab: all of them again, in this file's .symtab. Once this file is
// the module's symbol file, LLDB takes the module's sections from it (the
// object's .symtab among them is gone) and may read the symbol table anew.
llvm::Expected<std::string> buildDebugObject(const Architecture &arch, const AddressRange &text,
                                             const UuidBytes &buildId,
                                             std::string_view unitName,
                                             const std::vector<DebugFunction> &functions,
                                             const JitTables &tables,
                                             LinePlausible plausible = nullptr,
                                             std::vector<LldbSymbol> symbols = {});

} // namespace jitsym
