// Publishing a sync's changes to LLDB, region by region.
#include "Publisher.h"

#include "RuntimeFrames.h"
#include "jitsym/symbols/RuntimeNames.h"

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <unordered_set>
#include <utility>

#include "FunctionEntries.h"
#include "PendingBreakpoints.h"
#include "jitsym/objects/DebugObject.h"
#include "jitsym/objects/LldbSymbols.h"
#include "jitsym/plan/RegionPlanner.h"

namespace jitsym::plugin {
namespace {

std::string describeRegion(const AddressRange &section) {
  char text[64];
  std::snprintf(text, sizeof(text), "region 0x%" PRIx64 "-0x%" PRIx64, section.start,
                section.end);
  return text;
}

// The ranges where `module`'s sections are loaded. Top-level sections (an
// ELF's segments) cover the sections inside them.
void addLoadedSections(lldb::SBTarget &target, lldb::SBModule &module,
                       std::vector<AddressRange> &ranges) {
  for (size_t s = 0; s < module.GetNumSections(); ++s) {
    lldb::SBSection section = module.GetSectionAtIndex(s);
    const uint64_t start = section.GetLoadAddress(target);
    const uint64_t size = section.GetByteSize();
    if (start != LLDB_INVALID_ADDRESS && size > 0 && start + size > start)
      ranges.push_back({start, start + size});
  }
}

} // namespace

std::vector<AddressRange> claimedByOtherModules(lldb::SBTarget &target,
                                                const RegionModules &ours) {
  std::vector<AddressRange> claimed;
  for (uint32_t i = 0; i < target.GetNumModules(); ++i) {
    lldb::SBModule module = target.GetModuleAtIndex(i);
    if (module.IsValid() && !ours.owns(module))
      addLoadedSections(target, module, claimed);
  }
  return claimed;
}

std::vector<AddressRange> namedByGdbJitLoader(lldb::SBTarget &target) {
  std::vector<AddressRange> ranges;
  for (uint32_t i = 0; i < target.GetNumModules(); ++i) {
    lldb::SBModule module = target.GetModuleAtIndex(i);
    const char *name = module.GetFileSpec().GetFilename();
    if (module.IsValid() && name && std::string_view(name).substr(0, 6) == "JIT(0x")
      addLoadedSections(target, module, ranges);
  }
  return ranges;
}

std::string Publisher::runtimeFrameStatus() const {
  if (!phpFrameLooked_)
    return {};
  if (!phpFrame_)
    return "PHP JIT code: no module defines execute_ex with an unwind table, so its frames "
           "get no rule of PHP's (backtraces may end at them)\n";
  return "PHP JIT code: runs on execute_ex's frame, CFA = stack pointer + " +
         std::to_string(phpFrame_->cfaOffset) + " (from execute_ex's unwind table)\n";
}

PublishReport Publisher::publish(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                 RegionModules &modules, const Inputs &in,
                                 SymbolChanges &changes, SyncProgress &progress,
                                 const InterruptCheck &stop) {
  PublishReport report;
  const JitAddressSpace space = in.mappings.empty() ? JitAddressSpace::unrestricted()
                                                    : JitAddressSpace::fromMemoryMap(in.mappings);
  RegionPlanner planner(in.table, space, claimedByOtherModules(target, modules));
  const std::vector<AddressRange> jitLoaderRanges = namedByGdbJitLoader(target);
  auto namedByJitLoader = [&](uint64_t address) {
    return std::any_of(jitLoaderRanges.begin(), jitLoaderRanges.end(),
                       [&](const AddressRange &r) { return r.contains(address); });
  };
  for (const AddressRange &range : jitLoaderRanges)
    in.table.forEachInRange(range.start, range.end, [&](const Symbol &symbol) {
      report.namedByJitLoader += range.contains(symbol.address);
    });
  auto isData = [&](const Symbol &symbol) { return planner.isData(symbol); };

  // Windows to plan again (by their start: windowOf), and modules that must
  // be made anew even if their section stays: those holding a removed
  // symbol, and all of a window an earlier publish did not finish (what it
  // missed is not in `changes`; the window may have split or grown since).
  auto windowKey = [&](uint64_t address) { return planner.windowOf(address).start; };
  std::set<uint64_t> replan;
  std::set<uint64_t> stale;
  for (uint64_t address : std::exchange(leftBehind_, {})) {
    const AddressRange window = planner.windowOf(address);
    replan.insert(window.start);
    for (uint64_t key : modules.keysIn(window.start, window.end))
      stale.insert(key);
  }
  // Memory that became executable (a JIT that writes code into pages it makes
  // executable after): its region's data symbols may be code now.
  const uint64_t digest = planner.executableDigest();
  if (digest != executableDigest_)
    for (uint64_t key : modules.keysWithData()) {
      stale.insert(key);
      replan.insert(windowKey(key));
    }
  executableDigest_ = digest;
  for (uint64_t address : std::exchange(remake_, {}))
    for (uint64_t key : modules.keysOverlapping(address, address + 1)) {
      stale.insert(key);
      replan.insert(windowKey(key));
    }
  for (const RemovedRange &range : changes.removed) {
    ++report.removed;
    for (uint64_t key : modules.keysOverlapping(range.address, range.end)) {
      stale.insert(key);
      replan.insert(windowKey(key));
    }
  }
  // New symbols by region. One whose region has no module yet, or a module
  // with another section (the memory map changed), has its window planned again.
  std::map<uint64_t, std::vector<const Symbol *>> added;
  for (const Symbol *symbol : changes.added) {
    std::optional<AddressRange> section = planner.sectionOf(symbol->address);
    if (!section) {
      report.shadowed += !namedByJitLoader(symbol->address);
      continue;
    }
    ++report.added;
    added[section->start].push_back(symbol);
    const RegionModule *module = modules.find(section->start);
    if (!module || module->section != *section || stale.count(section->start))
      replan.insert(windowKey(symbol->address));
    // A region that grows past its window's end moves where the next starts.
    for (AddressRange w = planner.windowOf(symbol->address);
         w.end < section->end && w.end > w.start;) {
      w = planner.windowOf(w.end);
      replan.insert(w.start);
    }
  }
  // A module whose section the planner no longer gives (its window split or
  // joined others since) overlaps windows other than its own: all of them are
  // planned again, so that none keeps a module over another's code.
  for (std::vector<uint64_t> todo(replan.begin(), replan.end()); !todo.empty();) {
    const AddressRange window = planner.windowOf(todo.back());
    todo.pop_back();
    for (uint64_t key : modules.keysOverlapping(window.start, window.end)) {
      const RegionModule *module = modules.find(key);
      if (!module || planner.sectionOf(key) == module->section)
        continue;
      for (AddressRange w = planner.windowOf(module->section.start);;
           w = planner.windowOf(w.end)) {
        if (replan.insert(w.start).second)
          todo.push_back(w.start);
        if (w.end >= module->section.end || w.end <= w.start)
          break;
      }
    }
  }

  // New code whose unwind rule its module's object does not give (FramePointer.h):
  // the region is made anew. The entries of new code in modules that exist
  // are read in one batch first; those of the windows made anew are read
  // ahead, while LLDB loads the modules before them (FunctionEntries.h).
  FunctionEntries entries(*modules.code().arch, in.readPieces, in.directRead);
  // PHP's JIT code runs on execute_ex's frame, read once from its binary
  // when its code first shows up (RuntimeFrames.h); other code by its entry.
  if (!phpFrameLooked_)
    for (const Symbol *symbol : changes.added)
      if (phpJitCodeOf(in.table.name(*symbol)) != PhpJitCode::NotPhp) {
        phpFrame_ = phpVmFrame(target, *modules.code().arch);
        phpFrameLooked_ = true;
        break;
      }
  const EntryProbe probe = [&, read = entries.probe()](uint64_t start, uint64_t size) {
    if (phpFrame_)
      if (const Symbol *symbol = in.table.findByAddress(start); symbol && symbol->address == start)
        switch (phpJitCodeOf(in.table.name(*symbol))) {
        case PhpJitCode::OnVmFrame:
          return EntryRule{FramePointer::RuntimeFrame, std::nullopt};
        case PhpJitCode::Own:
          return EntryRule{FramePointer::NotKept, std::nullopt};
        case PhpJitCode::NotPhp:
          break;
        }
    return read(start, size);
  };
  {
    std::vector<std::pair<uint64_t, uint64_t>> code;
    for (const auto &[key, symbols] : added)
      if (modules.find(key))
        for (const Symbol *symbol : symbols)
          if (!isData(*symbol))
            code.emplace_back(symbol->address, symbol->size);
    entries.prefetch(std::move(code));
  }
  for (const auto &[key, symbols] : added)
    if (!stale.count(key) && !modules.frameRulesHold(key, symbols, isData, probe)) {
      stale.insert(key);
      replan.insert(windowKey(key));
    }
  {
    // The code of the windows made anew: what LLDB's modules say of old
    // functions is kept (RegionModules::framePointerOf), new ones are read.
    std::unordered_set<const Symbol *> isNew;
    for (const auto &[key, symbols] : added)
      isNew.insert(symbols.begin(), symbols.end());
    std::vector<FunctionEntries::Known> known;
    std::vector<std::pair<uint64_t, uint64_t>> code;
    for (uint64_t start : replan) {
      const AddressRange window = planner.windowOf(start);
      in.table.forEachInRange(window.start, window.end, [&](const Symbol &symbol) {
        if (isData(symbol))
          return;
        std::optional<EntryRule> was;
        if (!isNew.count(&symbol))
          was = modules.framePointerOf(symbol);
        if (was)
          known.push_back({symbol.address, symbol.size, *was});
        else
          code.emplace_back(symbol.address, symbol.size);
      });
    }
    entries.remember(known);
    entries.readAhead(std::move(code), breakpointLocationAddresses(target));
  }

  std::set<uint64_t> windows = replan;
  for (const auto &entry : added)
    windows.insert(windowKey(entry.first));
  const std::string step = "giving LLDB the JIT symbols of " + in.origin;
  bool halted = false;
  // What follows giving LLDB a region's `count` new symbols, done or refused;
  // false when the publish must stop (interrupted).
  auto settle = [&](uint64_t window, uint64_t key, const AddressRange &section, size_t count,
                    llvm::Error err) {
    if (!err) {
      refused_.erase(key);
      report.published += count;
      return true;
    }
    // Made anew at the next publish: a module missing a delta would stay so.
    modules.remove(target, key);
    leftBehind_.insert(window);
    std::string message = llvm::toString(std::move(err));
    if (stop())
      return false; // LLDB stopped loading it because of Ctrl-C
    if (refused_[key] != message) {
      report.refusals.push_back({describeRegion(section), 0, message});
      refused_[key] = message;
    }
    return true;
  };
  // New modules staged and not added yet (RegionModules::stage), oldest first.
  struct Staged {
    uint64_t window;
    AddressRange section;
    size_t count;
    StagedModule module;
  };
  std::deque<Staged> staged;
  ModuleReader reader;
  // Adds the staged modules but the last `keep`, which LLDB reads meanwhile.
  auto finishStaged = [&](size_t keep) {
    while (staged.size() > keep) {
      Staged next = std::move(staged.front());
      staged.pop_front();
      llvm::Error err = modules.finish(target, std::move(next.module), reader);
      if (!settle(next.window, next.section.start, next.section, next.count, std::move(err)))
        return false;
    }
    return true;
  };
  const bool debugInfo = in.lines.functionCount() > 0 || in.unwind.functionCount() > 0;
  // The functions of a region as DWARF wants them, and whether any has lines
  // or an unwind table.
  auto debugFunctions = [&](const AddressRange &section, bool &any) {
    return debugFunctionsIn(in.table, section, in.lines, in.unwind, any, isData);
  };
  // A new module carries its lines itself: a file-and-line breakpoint then
  // resolves in it as LLDB adds it (and moves from a module it replaces).
  auto stageModule = [&](const PlannedRegion &fresh) -> llvm::Expected<StagedModule> {
    std::vector<ElfSection> debugSections;
    bool any = false;
    std::vector<DebugFunction> functions;
    if (debugInfo)
      functions = debugFunctions(fresh.section, any);
    if (any) {
      llvm::Expected<std::vector<ElfSection>> built = buildDebugSections(
          fresh.section, RegionFiles::kObject, functions, in.lines, in.unwind, in.plausible);
      if (!built)
        return built.takeError();
      debugSections = std::move(*built);
    }
    return modules.stage(target, in.table, fresh, isData, probe, phpFrame_,
                         std::move(debugSections), reader);
  };
  // A delta for a module LLDB has, then the module's debug info again.
  auto appendDelta = [&](uint64_t key, const std::vector<const Symbol *> &symbols) -> llvm::Error {
    if (symbols.empty())
      return llvm::Error::success();
    if (llvm::Error err = modules.append(debugger, target, key, in.table, symbols, isData))
      return err;
    const RegionModule *module = modules.find(key);
    bool any = false;
    std::vector<DebugFunction> functions;
    if (module && debugInfo)
      functions = debugFunctions(module->section, any);
    if (!any)
      return llvm::Error::success();
    // Each symbol file replaces the one before: the lines come again, with
    // the delta's functions.
    std::vector<const Symbol *> all;
    in.table.forEachInRange(module->section.start, module->section.end,
                            [&](const Symbol &symbol) {
                              if (symbol.address >= module->section.start)
                                all.push_back(&symbol);
                            });
    return modules.attachDebugInfo(debugger, target, key, functions, in.lines, in.unwind,
                                   in.plausible, lldbSymbolsOf(in.table, all, isData));
  };
  // Gives LLDB one region's new symbols: a new module (staged, added once
  // the next one is staged) or a delta; false when the publish must stop.
  auto publishRegion = [&](uint64_t window, uint64_t key, const PlannedRegion *fresh) {
    static const std::vector<const Symbol *> none;
    auto found = added.find(key);
    const std::vector<const Symbol *> &symbols = found == added.end() ? none : found->second;
    if (fresh) {
      llvm::Expected<StagedModule> module = stageModule(*fresh);
      if (!module)
        return settle(window, key, fresh->section, symbols.size(), module.takeError());
      staged.push_back({window, fresh->section, symbols.size(), std::move(*module)});
      // The one before is added while LLDB reads this one (ModuleReader.h);
      // one more queued evens out modules of different sizes.
      return finishStaged(2);
    }
    llvm::Error err = appendDelta(key, symbols);
    const RegionModule *module = modules.find(key);
    return settle(window, key, module ? module->section : AddressRange{key, key}, symbols.size(),
                  std::move(err));
  };

  for (auto it = windows.begin(); it != windows.end() && !halted; ++it) {
    const uint64_t window = *it;
    if (stop()) {
      halted = true;
      leftBehind_.insert(it, windows.end());
      break;
    }
    progress.update(step, report.published, report.added, "symbols");
    const AddressRange bounds = planner.windowOf(window);
    const uint64_t begin = bounds.start, end = bounds.end;
    if (!replan.count(window)) {
      for (auto a = added.lower_bound(begin); a != added.end() && a->first < end && !halted; ++a)
        halted = !publishRegion(window, a->first, nullptr);
    } else {
      std::set<uint64_t> kept;
      for (const PlannedRegion &region : planner.planWindow(bounds)) {
        const uint64_t key = region.section.start;
        kept.insert(key);
        const RegionModule *module = modules.find(key);
        const bool stays = module && module->section == region.section && !stale.count(key);
        if (!publishRegion(window, key, stays ? nullptr : &region)) {
          halted = true;
          break;
        }
        for (AddressRange w = bounds; w.end < region.section.end && w.end > w.start;) {
          w = planner.windowOf(w.end);
          replan.insert(w.start);
          windows.insert(w.start); // later in the set: this loop reaches it
        }
      }
      if (!halted)
        for (uint64_t key : modules.keysIn(begin, end))
          if (!kept.count(key))
            modules.remove(target, key);
    }
    if (halted)
      leftBehind_.insert(it, windows.end());
  }
  if (!halted)
    halted = !finishStaged(0);
  for (Staged &left : staged) { // interrupted: made anew at the next publish
    modules.abandon(target, std::move(left.module));
    leftBehind_.insert(left.window);
  }
  report.interrupted = halted;
  progress.update(step, report.published, report.added, "symbols");
  return report;
}

} // namespace jitsym::plugin
