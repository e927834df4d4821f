// Gives LLDB what changed in a process's symbol table since the last sync: core
// PublishPlan.h decides which regions are made anew, which get their new
// symbols as a delta and which modules go; this applies that plan with SB
// calls, region by region in address order. A new module is staged (its
// object written, LLDB reading it on a thread) while the one before is
// added. A region LLDB refuses is reported once and tried again at the next
// sync; it never stops the others. An interrupted publish leaves its
// windows to the next one.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "FunctionEntries.h"
#include "RegionModules.h"
#include "SyncProgress.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/base/Interrupt.h"
#include "jitsym/symbols/JitTables.h"
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/plan/PublishPlan.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// What one publish did, for the sync's report.
struct PublishReport {
  uint64_t added = 0;    // new symbols placed in a region
  uint64_t removed = 0;  // replaced or freed
  uint64_t shadowed = 0; // left out: file-backed, unmapped or claimed memory
  // Known symbols (all, not only new) in code LLDB's GDB JIT loader names:
  // its modules (JIT(0x...)) hold them, with their lines, and ours leave it.
  uint64_t namedByJitLoader = 0;
  bool interrupted = false;
  uint64_t published = 0; // new symbols LLDB has (less than added if interrupted)
  std::vector<Diagnostic> refusals; // regions LLDB refused, each said once
};

// The ranges that modules other than `ours` give to LLDB: no JIT region covers
// them (a JIT symbol never shadows a real module).
std::vector<AddressRange> claimedByOtherModules(lldb::SBTarget &target,
                                                const RegionModules &ours);
// Of those, the ranges of the objects LLDB's GDB JIT loader added (JITLoaderGDB
// names its modules "JIT(0xADDRESS)"): a runtime that registers its code through
// GDB's JIT interface (LLVM's MCJIT, PHP with opcache.jit_debug=0x100) is named
// there by LLDB itself.
std::vector<AddressRange> namedByGdbJitLoader(lldb::SBTarget &target);

class Publisher {
public:
  struct Inputs {
    const JitTables &tables;
    const std::vector<Mapping> &mappings; // empty: no memory map is known
    LinePlausible plausible;
    std::string origin; // the files the symbols come from, for progress
    FunctionEntries::ReadPieces readPieces; // the process's memory (ProcessSide)
    FunctionEntries::ReadPieces directRead; // the same without LLDB, or none
  };

  PublishReport publish(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                        RegionModules &modules, const Inputs &inputs, SymbolChanges &changes,
                        SyncProgress &progress, const InterruptCheck &stop);
  // The module holding `address` is made anew at the next publish, even if no
  // symbol of it changed (see SourcesRead::remakeAt).
  void remake(uint64_t address) { carry_.remake.insert(address); }
  void forget() {
    carry_ = {};
    refused_.clear();
    phpFrame_.reset();
    phpFrameLooked_ = false;
  }
  // What the PHP JIT code's unwind rule comes from, for --status; empty when
  // no PHP code was seen.
  std::string runtimeFrameStatus() const;
  // Whether a publish is due even with no new symbols: work left, or data
  // symbols whose memory may have become executable since.
  bool wantsPublish(const RegionModules &modules) const {
    return !carry_.leftBehind.empty() || !carry_.remake.empty() || modules.holdData();
  }

private:
  class Application; // one publish's SB calls (Publisher.cpp)

  PublishCarry carry_; // what the last publish left to this one
  // The refusal last said for each region, so it is said once.
  std::map<uint64_t, std::string> refused_;
  // The frame PHP's JIT code runs on (RuntimeFrames.h), looked for once per
  // process, when its code first shows up.
  std::optional<RuntimeFrame> phpFrame_;
  bool phpFrameLooked_ = false;
};

} // namespace jitsym::plugin
