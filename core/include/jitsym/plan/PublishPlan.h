// What one publish gives LLDB, decided before anything is given: from the
// table's changes, the memory map and the regions LLDB holds, which regions
// are made anew (and why), which get their new symbols as a delta, and which
// modules go. The plugin applies the plan with SB calls (plugin Publisher.h)
// and decides nothing; this is where the decisions are, and they are tested
// without LLDB.
//
// A region is made anew (a new module in place of the old one) when LLDB's
// module of it cannot be mended by adding symbols, since LLDB can add symbols
// to a module but never remove them:
//   - code was replaced or freed in it (a removed symbol);
//   - its window's plan changed: the window split or joined its siblings, the
//     memory map moved the region's bounds, a region grew into the next window;
//   - memory it holds as data became executable (MCJIT writes code first);
//   - breakpoint locations wait for it to be made again (SourcesRead::remakeAt);
//   - new code in it needs another unwind rule than its object gives
//     (FramePointer.h);
//   - an earlier publish was interrupted there, or LLDB refused the region.
// Every other region with new symbols gets them as a delta.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "jitsym/arch/Architecture.h"
#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/plan/RuntimeFrame.h"
#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

// What LLDB holds of one region: its module's section, whether it holds data
// symbols, and the unwind rules its object gives.
struct HeldRegion {
  AddressRange section;
  uint64_t dataSymbols = 0;
  const FramePointerCode *framePointerCode = nullptr; // none: no rule known
};
// LLDB's modules of a process's regions, by key (their section's start).
using HeldRegions = std::map<uint64_t, HeldRegion>;

// What a publish leaves to the next one.
struct PublishCarry {
  std::set<uint64_t> leftBehind; // windows (an address in each) to plan again
  std::set<uint64_t> remake;     // addresses whose modules must be made anew
  uint64_t executableDigest = 0; // where memory was executable (RegionPlanner)
};

// How the plan learns what functions' entries say of their frame (reading the
// process's memory is the caller's: plugin FunctionEntries.h).
class EntryReader {
public:
  virtual ~EntryReader() = default;
  // Reads these functions' entries (start, size) in one batch, to be asked next.
  virtual void prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions) = 0;
  virtual EntryRule at(uint64_t start, uint64_t size) = 0;
};

// Why a region is made anew (or, Delta, given only its new symbols).
enum class RemakeReason {
  Delta,          // not made anew: its new symbols are added
  NewRegion,      // LLDB has no module for it
  PlanChanged,    // its window's plan moved its section, or a region grew into it
  CodeRemoved,    // code in it was replaced or freed
  BecameCode,     // memory it held as data is executable now
  Asked,          // breakpoint locations wait for it (Publisher::remake)
  FrameRule,      // new code needs an unwind rule its object does not give
  LeftBehind,     // an earlier publish did not finish it, or LLDB refused it
};
const char *describe(RemakeReason reason);

class PublishPlan {
public:
  struct Inputs {
    const SymbolTable &table;
    const JitAddressSpace &space;
    std::vector<AddressRange> claimed;   // other modules' ranges (RegionPlanner)
    std::vector<AddressRange> jitLoader; // of those, LLDB's GDB JIT loader's
    const HeldRegions &held;
    const Architecture &arch;
    // The frame PHP's JIT code runs on (RuntimeFrame.h), when known.
    std::optional<RuntimeFrame> runtimeFrame;
  };

  // One region's step, in publish order.
  struct Step {
    uint64_t key = 0;                  // the region's section start
    RemakeReason why = RemakeReason::Delta;
    std::optional<PlannedRegion> anew; // its section and symbols, when made anew
    std::vector<const Symbol *> added; // its new symbols (a delta's content)
  };
  // The steps of one window, then the held modules of it that no region keeps.
  struct Window {
    uint64_t start = 0;
    std::vector<Step> steps;
    std::vector<uint64_t> removed;
  };

  // Plans the publish of `changes`. `carry` is what the last publish left
  // (consumed: leftBehind and remake are emptied, the digest updated).
  // `entries` answers what new code's entries say.
  PublishPlan(const Inputs &in, const SymbolChanges &changes, PublishCarry &carry,
              EntryReader &entries);

  const std::vector<Window> &windows() const { return windows_; }
  // Whether `symbol` goes to LLDB as data (RegionPlanner::isData).
  bool isData(const Symbol &symbol) const { return planner_.isData(symbol); }
  // What each function's entry says, with the code that runs on a runtime's
  // frame told by its name (the plan's probe: the same for the modules made).
  const EntryProbe &probe() const { return probe_; }

  // The code of the regions made anew: functions LLDB's modules already say
  // the rule of (kept, not read again), and those to read.
  struct KnownEntry {
    uint64_t start = 0, size = 0;
    EntryRule rule;
  };
  const std::vector<KnownEntry> &knownEntries() const { return known_; }
  const std::vector<std::pair<uint64_t, uint64_t>> &entriesToRead() const { return toRead_; }

  // Counts for the sync's report.
  uint64_t added() const { return added_; }     // new symbols placed in a region
  uint64_t removed() const { return removed_; } // ranges of code replaced or freed
  uint64_t shadowed() const { return shadowed_; } // new symbols in no region (not the loader's)
  uint64_t namedByJitLoader() const { return namedByJitLoader_; } // known symbols in its code

private:
  void decide(const Inputs &in, const SymbolChanges &changes, PublishCarry &carry,
              EntryReader &entries);
  void addSteps(const Inputs &in);

  RegionPlanner planner_;
  EntryProbe probe_;
  std::vector<Window> windows_;
  std::vector<KnownEntry> known_;
  std::vector<std::pair<uint64_t, uint64_t>> toRead_;
  // While deciding: windows planned again, by their start, and why; held
  // modules made anew, by key, and why; new symbols by region key.
  std::map<uint64_t, RemakeReason> replan_;
  std::map<uint64_t, RemakeReason> stale_;
  std::map<uint64_t, std::vector<const Symbol *>> addedByKey_;
  uint64_t added_ = 0, removed_ = 0, shadowed_ = 0, namedByJitLoader_ = 0;
};

// What LLDB's module of `symbol`'s region said of its entry when it was made
// (code announced once does not change, so a region made anew need not read
// its old functions again): nothing without such a module, in one with data
// symbols (its code may have been data then), or where the architecture's
// FDEs describe prologues and this one is not (code added later in a delta).
std::optional<EntryRule> heldEntryRule(const HeldRegions &held, const Architecture &arch,
                                       const Symbol &symbol);

// The entry rule of a function, with the code that runs on a runtime's frame
// told by its name (PHP's JIT, RuntimeNames.h) when that frame is known;
// other code by `read`.
EntryProbe runtimeAwareProbe(const SymbolTable &table, std::optional<RuntimeFrame> runtimeFrame,
                             EntryProbe read);

// Whether one of `added` is code that runs on a runtime's frame: the caller
// then looks for that frame (once per process) before planning.
bool wantsRuntimeFrame(const SymbolTable &table, const std::vector<const Symbol *> &added);

} // namespace jitsym
