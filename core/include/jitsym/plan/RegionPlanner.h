// The one place that decides how JIT symbols become LLDB modules: a region per
// window of JIT memory and run of anonymous memory in it, with its section, its
// symbols, its UUID and the names of its files. Live publishing (the plugin),
// `jit-sync --export`, `jitsym export` and `jitsym convert` all plan here.
//
// Why windows: a module is the unit LLDB rebuilds when code is replaced (it can
// add symbols to a module, never remove them), so it must be small enough to
// rebuild cheaply and fixed enough that its identity is stable. Why runs: a
// section must never cover memory that a file-backed module (or any other
// module LLDB has) names, so a window is cut where the anonymous memory ends.
//
// Why windows sized by their symbols: each module costs LLDB about a
// millisecond whatever it holds, and a module made anew costs it about a
// microsecond for each of its symbols (it builds their name index as the
// module loads). Sparse code wants few, large windows; dense code, where
// runtimes replace code often, small ones. A window is an aligned block of
// 256 MiB split in four, again and again down to 64 KiB, while it holds more
// than kWindowSymbols symbols. Without a memory map none is larger than 1 MiB:
// nothing then says where JIT memory ends, and a section stays near its
// symbols. As the table changes a window may split (or join its siblings);
// its modules are then made anew at the next publish.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/plan/Regions.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/plan/Uuid.h"

namespace jitsym {

constexpr unsigned kLargestWindowShift = 28;  // 256 MiB
constexpr unsigned kUnmappedWindowShift = 20; // 1 MiB, without a memory map
constexpr unsigned kSmallestWindowShift = 20; // 1 MiB
constexpr unsigned kWindowSplitShift = 2;     // a window splits in four
constexpr size_t kWindowSymbols = 16384;

struct PlannedRegion {
  AddressRange section;
  std::vector<const Symbol *> symbols; // in address order
};

class RegionPlanner {
public:
  // `space`: where JIT code may lie (a memory map's anonymous runs; unrestricted
  // when no memory map is known). `claimed`: ranges LLDB already gives to other
  // modules (in any order), which no region covers and no JIT symbol names.
  RegionPlanner(const SymbolTable &table, const JitAddressSpace &space,
                const std::vector<AddressRange> &claimed = {});

  // The section of the region the symbol starting at `address` belongs to;
  // nothing when it must not be named (file-backed, special, unmapped, or
  // claimed memory). The section is the symbol's window clipped to its run;
  // a symbol that straddles the window's end stays whole in its own region
  // (the next region starts after it); and without a memory map, the
  // section covers only the pages the window's symbols span.
  std::optional<AddressRange> sectionOf(uint64_t address) const;

  // The window `address` is in, as the table is now.
  AddressRange windowOf(uint64_t address) const;

  // Every region of the table; `leftOut` counts the symbols of none.
  std::vector<PlannedRegion> plan(uint64_t *leftOut = nullptr) const;
  // The regions of the symbols that start in `window` (as windowOf gives it).
  std::vector<PlannedRegion> planWindow(const AddressRange &window,
                                        uint64_t *leftOut = nullptr) const;
  // The regions of the symbols that start in [begin, end).
  std::vector<PlannedRegion> planRange(uint64_t begin, uint64_t end,
                                       uint64_t *leftOut = nullptr) const;

  // Whether `symbol` goes to LLDB as data, not code: its memory is not
  // executable (by the memory map), or, with no memory map, its runtime says
  // by its name that it is not machine code (RuntimeNames.h). No breakpoint
  // resolves on data, so none writes a trap into a runtime's bytecode. A
  // jitdump's symbol (kOwnedFlag) in writable memory is code all the same:
  // code not yet made executable (LLVM's MCJIT).
  bool isData(const Symbol &symbol) const;
  // A digest of where the memory map says memory is executable.
  uint64_t executableDigest() const { return space_.executableDigest(); }

private:
  std::optional<AddressRange> computeSectionOf(uint64_t address) const;
  AddressRange computeWindowOf(uint64_t address) const;

  const SymbolTable &table_;
  JitAddressSpace space_;
  // The last section found: every symbol that starts in it is in that region
  // (the table does not change while a planner lives).
  mutable std::optional<AddressRange> last_;
  mutable std::optional<AddressRange> lastWindow_; // what windowOf gave last
};

// The same symbols in the same sections with the same `salt` give the same UUID
// (FNV-1a over sections, addresses, sizes and names, then a name-based UUID).
// Live modules salt it with the process and the region's generation, so a
// rebuilt region never shares a UUID with the module it replaces.
UuidBytes planUuid(const SymbolTable &table, const std::vector<PlannedRegion> &regions,
                   std::string_view salt);
inline UuidBytes regionUuid(const SymbolTable &table, const PlannedRegion &region,
                            std::string_view salt) {
  return planUuid(table, {region}, salt);
}

// The files of a region, relative to the directory it is written into. Each
// region has a directory of its own so that its object can be called just
// "jit": the name LLDB shows in backtraces ("jit`JS:*leaf ...") and the one
// `--shlib jit` selects.
struct RegionFiles {
  // "w<section start in hex>", and "-g<generation>" for live modules.
  static std::string directory(const AddressRange &section,
                               std::optional<uint32_t> generation = std::nullopt);
  static constexpr const char *kObject = "jit";
  // 0: the region's first symbol file "jit.json"; n: the n-th delta "jit.dN.json".
  static std::string symbols(uint32_t delta = 0);
  // 0: "jit.debug"; n: the n-th rewrite of a live module's "jit.debugN".
  static std::string debug(uint32_t rewrite = 0);
};

} // namespace jitsym
