// The LLDB side of the JIT symbols of one process: one module per planned region
// (core RegionPlanner.h), keyed by its section's start. A module is an unwind
// object (ELF: code section + .eh_frame giving the frame-pointer rule to the
// code that keeps a frame pointer, see core UnwindObject.h and FramePointer.h)
// that carries the region's symbols in its .symtab; symbols added later go in
// as small JSON delta files attached with `target symbols add`. A region whose
// code was replaced or freed is made again as a new module, because LLDB can
// add symbols to a module but never remove them: its object, at the same path
// with a new UUID, replaces the old module, so LLDB moves breakpoint locations
// to the new module's code (Breakpoint::ModuleReplaced) and drops those with
// no code left. New code whose unwind rule the object does not give (a
// function without a frame pointer after one with it, or the reverse) also
// has its region made anew. A region with source lines has them in its object's DWARF
// (core DebugObject.h); after a delta it gets a debug object with all of them:
// each `target symbols add` replaces the module's symbol file (the JSON
// symbols stay in its symbol table), so the debug object is written again
// after every delta.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ModuleReader.h"
#include "TargetCode.h"
#include "jitsym/objects/DebugObject.h"
#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/PublishPlan.h"
#include "jitsym/symbols/JitTables.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/plan/Uuid.h"
#include "lldb/API/LLDB.h"
#include "llvm/Support/Error.h"

namespace jitsym::plugin {

struct RegionModule {
  AddressRange section;
  uint32_t generation = 0;
  uint32_t deltas = 0;
  uint32_t debugObjects = 0; // written so far (the last one is in use)
  uint64_t symbols = 0;
  uint64_t dataSymbols = 0; // of `symbols`, given to LLDB as data
  UuidBytes uuid{};
  // The code its object gives the frame-pointer unwind rule (FramePointer.h).
  FramePointerCode framePointerCode;
  lldb::SBModule module;
  std::string directory;       // its JSON deltas and debug objects
  std::string objectDirectory; // its object, at one path for every generation
  std::vector<std::string> files; // to delete when the module goes
};

// A region's new module between RegionModules::stage and finish.
struct StagedModule {
  RegionModule region;                  // its object written, no module yet
  std::optional<RegionModule> previous; // the module it replaces, still in LLDB
  // Whether `previous` was unloaded already, because breakpoint locations
  // were in it: it is then replaced in place (`finish`) so that they move.
  bool previousUnloaded = false;
  lldb::SBModuleSpec spec;
  std::optional<size_t> reading; // its ModuleReader ticket; none: no symbols, no module
};

class RegionModules {
public:
  // `directory` is private to this process's session; `identity` names the
  // process, and salts the UUIDs with it; `code`: what the target's code is.
  RegionModules(std::string directory, std::string identity, TargetCode code)
      : directory_(std::move(directory)), identity_(std::move(identity)),
        code_(std::move(code)) {}

  // Gives LLDB `region` as a new module, in place of the one with the same
  // key, in two steps: `stage` writes its object and queues it with `reader`
  // (LLDB reads it on a thread of its own, ModuleReader.h), `finish` adds it
  // to the target. A publisher stages the next region before it finishes
  // this one, so that LLDB reads one module while another is built and added.
  // The new module has the next generation of its key, so a new UUID.
  // `isData`: which symbols go as data (RegionPlanner::isData).
  // `debugSections`: the region's lines and unwind tables, if it has any
  // (DebugObject.h's buildDebugSections), carried by the module's object.
  // `entries`: what each function's entry says of its frame pointer;
  // `runtimeFrame`: the frame of the code that runs on the runtime's (RuntimeFrame.h).
  // Until it is finished (or abandoned) the key has no module here.
  llvm::Expected<StagedModule> stage(lldb::SBTarget &target, const SymbolTable &table,
                                     const PlannedRegion &region, SymbolPredicate isData,
                                     const EntryProbe &entries,
                                     const std::optional<RuntimeFrame> &runtimeFrame,
                                     std::vector<ElfSection> debugSections,
                                     ModuleReader &reader);
  llvm::Error finish(lldb::SBTarget &target, StagedModule staged, ModuleReader &reader);
  // Drops a staged module unfinished (its region is made anew later), and
  // the module it was to replace.
  void abandon(lldb::SBTarget &target, StagedModule staged);
  // Attaches `symbols` to the module of region `key`.
  llvm::Error append(lldb::SBDebugger &debugger, lldb::SBTarget &target, uint64_t key,
                     const SymbolTable &table, const std::vector<const Symbol *> &symbols,
                     SymbolPredicate isData);
  // Gives the module of region `key` the source lines and unwind tables of
  // its functions (all of the region's live functions, with them or without),
  // and all of its symbols again (DebugObject.h says why).
  llvm::Error attachDebugInfo(lldb::SBDebugger &debugger, lldb::SBTarget &target, uint64_t key,
                              const std::vector<DebugFunction> &functions,
                              const JitTables &tables, LinePlausible plausible,
                              std::vector<LldbSymbol> symbols);
  // Removes the module of region `key` from `target` and deletes its files.
  void remove(lldb::SBTarget &target, uint64_t key);
  // Removes every module from `target` and deletes the files.
  void removeAll(lldb::SBTarget &target);

  const RegionModule *find(uint64_t key) const;
  // What LLDB holds, as a publish plans with it (valid until the next change).
  HeldRegions held() const;
  // Whether a module holds data symbols (their memory may become code).
  bool holdData() const;
  // Whether `module` is one of these (its object lies in this directory).
  bool owns(const lldb::SBModule &module) const;
  size_t size() const { return regions_.size(); }
  const TargetCode &code() const { return code_; }
  uint64_t symbolCount() const;

private:
  llvm::Error addSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                            const std::string &path);
  llvm::Error attachSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                               RegionModule &region, const std::string &path,
                               const SymbolTable &table,
                               const std::vector<const Symbol *> &symbols,
                               SymbolPredicate isData);
  void discard(lldb::SBTarget &target, RegionModule &region);

  std::string directory_;
  std::string identity_;
  TargetCode code_;
  std::map<uint64_t, RegionModule> regions_;
  // The last generation of every key LLDB has seen a module of in this
  // process, also of regions removed since: LLDB may still hold their module
  // in its cache.
  std::map<uint64_t, uint32_t> generations_;
};

} // namespace jitsym::plugin
