// Publishing a sync's changes to LLDB, region by region.
#include "Publisher.h"

#include "RuntimeFrames.h"

#include <cinttypes>
#include <cstdio>
#include <deque>
#include <utility>

#include "FunctionEntries.h"
#include "LocationOptions.h"
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

// One publish: the plan's steps as SB calls, in order. Holds what the steps
// share (the staged modules, the reader, the report) so that each step is a
// short function.
class Publisher::Application {
public:
  Application(Publisher &publisher, lldb::SBDebugger &debugger, lldb::SBTarget &target,
              RegionModules &modules, const Inputs &in, const PublishPlan &plan,
              PublishReport &report)
      : publisher_(publisher), debugger_(debugger), target_(target), modules_(modules), in_(in),
        plan_(plan), report_(report),
        debugInfo_(in.tables.lines.functionCount() > 0 || in.tables.unwind.functionCount() > 0) {}

  // Applies the plan's windows in order; false when interrupted (the rest is
  // left to the next publish).
  bool run(SyncProgress &progress, const InterruptCheck &stop, const std::string &step);

private:
  bool applyWindow(const PublishPlan::Window &window);
  bool applyStep(uint64_t window, const PublishPlan::Step &step);
  llvm::Expected<StagedModule> stage(const PlannedRegion &region);
  llvm::Error appendDelta(uint64_t key, const std::vector<const Symbol *> &symbols);
  bool finishStaged(size_t keep);
  bool settle(uint64_t window, uint64_t key, const AddressRange &section, size_t count,
              llvm::Error err);
  // The functions of a region as DWARF wants them, and whether any has lines
  // or an unwind table.
  std::vector<DebugFunction> debugFunctions(const AddressRange &section, bool &any) const {
    any = false;
    if (!debugInfo_)
      return {};
    return debugFunctionsIn(in_.tables, section, any, isData());
  }
  // (SymbolPredicate is a function_ref: it refers to this member.)
  SymbolPredicate isData() const { return isData_; }

  Publisher &publisher_;
  lldb::SBDebugger &debugger_;
  lldb::SBTarget &target_;
  RegionModules &modules_;
  const Inputs &in_;
  const PublishPlan &plan_;
  PublishReport &report_;
  const bool debugInfo_;
  const std::function<bool(const Symbol &)> isData_ = [this](const Symbol &symbol) {
    return plan_.isData(symbol);
  };
  // New modules staged and not added yet (RegionModules::stage), oldest first.
  struct Staged {
    uint64_t window;
    AddressRange section;
    size_t count;
    StagedModule module;
  };
  std::deque<Staged> staged_;
  ModuleReader reader_;
  const InterruptCheck *stop_ = nullptr;
};

bool Publisher::Application::run(SyncProgress &progress, const InterruptCheck &stop,
                                  const std::string &step) {
  stop_ = &stop;
  const std::vector<PublishPlan::Window> &windows = plan_.windows();
  bool halted = false;
  size_t next = 0;
  for (; next < windows.size(); ++next) {
    if (stop()) {
      halted = true;
      break;
    }
    progress.update(step, report_.published, report_.added, "symbols");
    if (!applyWindow(windows[next])) {
      halted = true;
      break;
    }
  }
  // Interrupted: this window and the ones after it are planned again.
  for (size_t w = next; halted && w < windows.size(); ++w)
    publisher_.carry_.leftBehind.insert(windows[w].start);
  if (!halted)
    halted = !finishStaged(0);
  for (Staged &left : staged_) { // interrupted: made anew at the next publish
    modules_.abandon(target_, std::move(left.module));
    publisher_.carry_.leftBehind.insert(left.window);
  }
  progress.update(step, report_.published, report_.added, "symbols");
  return !halted;
}

bool Publisher::Application::applyWindow(const PublishPlan::Window &window) {
  for (const PublishPlan::Step &step : window.steps)
    if (!applyStep(window.start, step))
      return false;
  for (uint64_t key : window.removed)
    modules_.remove(target_, key);
  return true;
}

// Gives LLDB one region's new symbols: a new module (staged, added once the
// next one is staged) or a delta; false when the publish must stop.
bool Publisher::Application::applyStep(uint64_t window, const PublishPlan::Step &step) {
  if (step.anew) {
    llvm::Expected<StagedModule> module = stage(*step.anew);
    if (!module)
      return settle(window, step.key, step.anew->section, step.added.size(), module.takeError());
    staged_.push_back({window, step.anew->section, step.added.size(), std::move(*module)});
    // The one before is added while LLDB reads this one (ModuleReader.h);
    // one more queued evens out modules of different sizes.
    return finishStaged(2);
  }
  llvm::Error err = appendDelta(step.key, step.added);
  const RegionModule *module = modules_.find(step.key);
  return settle(window, step.key, module ? module->section : AddressRange{step.key, step.key},
                step.added.size(), std::move(err));
}

// A new module carries its lines itself: a file-and-line breakpoint then
// resolves in it as LLDB adds it (and moves from a module it replaces).
llvm::Expected<StagedModule> Publisher::Application::stage(const PlannedRegion &region) {
  std::vector<ElfSection> debugSections;
  bool any = false;
  std::vector<DebugFunction> functions = debugFunctions(region.section, any);
  if (any) {
    llvm::Expected<std::vector<ElfSection>> built =
        buildDebugSections(region.section, RegionFiles::kObject, functions, in_.tables,
                           in_.plausible);
    if (!built)
      return built.takeError();
    debugSections = std::move(*built);
  }
  return modules_.stage(target_, in_.tables.symbols, region, isData(), plan_.probe(),
                        publisher_.phpFrame_, std::move(debugSections), reader_);
}

// A delta for a module LLDB has, then the module's debug info again.
llvm::Error Publisher::Application::appendDelta(uint64_t key,
                                                const std::vector<const Symbol *> &symbols) {
  if (symbols.empty())
    return llvm::Error::success();
  if (llvm::Error err = modules_.append(debugger_, target_, key, in_.tables.symbols, symbols, isData()))
    return err;
  const RegionModule *module = modules_.find(key);
  bool any = false;
  std::vector<DebugFunction> functions;
  if (module)
    functions = debugFunctions(module->section, any);
  if (!any)
    return llvm::Error::success();
  // Each symbol file replaces the one before: the lines come again, with the
  // delta's functions.
  std::vector<const Symbol *> all;
  in_.tables.symbols.forEachInRange(module->section.start, module->section.end,
                           [&](const Symbol &symbol) {
                             if (symbol.address >= module->section.start)
                               all.push_back(&symbol);
                           });
  return modules_.attachDebugInfo(debugger_, target_, key, functions, in_.tables,
                                  in_.plausible, lldbSymbolsOf(in_.tables.symbols, all, isData()));
}

// Adds the staged modules but the last `keep`, which LLDB reads meanwhile.
bool Publisher::Application::finishStaged(size_t keep) {
  while (staged_.size() > keep) {
    Staged next = std::move(staged_.front());
    staged_.pop_front();
    llvm::Error err = modules_.finish(target_, std::move(next.module), reader_);
    if (!settle(next.window, next.section.start, next.section, next.count, std::move(err)))
      return false;
  }
  return true;
}

// What follows giving LLDB a region's `count` new symbols, done or refused;
// false when the publish must stop (interrupted).
bool Publisher::Application::settle(uint64_t window, uint64_t key, const AddressRange &section,
                                    size_t count, llvm::Error err) {
  if (!err) {
    publisher_.refused_.erase(key);
    report_.published += count;
    return true;
  }
  // Made anew at the next publish: a module missing a delta would stay so.
  modules_.remove(target_, key);
  publisher_.carry_.leftBehind.insert(window);
  std::string message = llvm::toString(std::move(err));
  if ((*stop_)())
    return false; // LLDB stopped loading it because of Ctrl-C
  if (publisher_.refused_[key] != message) {
    report_.refusals.push_back({describeRegion(section), 0, message});
    publisher_.refused_[key] = message;
  }
  return true;
}

PublishReport Publisher::publish(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                 RegionModules &modules, const Inputs &in,
                                 SymbolChanges &changes, SyncProgress &progress,
                                 const InterruptCheck &stop) {
  // PHP's JIT code runs on execute_ex's frame, read once from its binary
  // when its code first shows up (RuntimeFrames.h).
  if (!phpFrameLooked_ && wantsRuntimeFrame(in.tables.symbols, changes.added)) {
    phpFrame_ = phpVmFrame(target, *modules.code().arch);
    phpFrameLooked_ = true;
  }
  const JitAddressSpace space = in.mappings.empty() ? JitAddressSpace::unrestricted()
                                                    : JitAddressSpace::fromMemoryMap(in.mappings);
  const HeldRegions held = modules.held();
  const PublishPlan::Inputs planInputs{in.tables.symbols,
                                       space,
                                       claimedByOtherModules(target, modules),
                                       namedByGdbJitLoader(target),
                                       held,
                                       *modules.code().arch,
                                       phpFrame_};
  // The entries of new code in held modules are read in one batch while
  // planning; those of the regions made anew are read ahead, while LLDB
  // loads the modules before them (FunctionEntries.h).
  FunctionEntries entries(*modules.code().arch, in.readPieces, in.directRead);
  const PublishPlan plan(planInputs, changes, carry_, entries);
  entries.remember(plan.knownEntries());
  entries.readAhead(plan.entriesToRead(), breakpointLocationAddresses(target));

  PublishReport report;
  report.added = plan.added();
  report.removed = plan.removed();
  report.shadowed = plan.shadowed();
  report.namedByJitLoader = plan.namedByJitLoader();
  // A location the user disabled or gave a condition of its own keeps them
  // when its module is made anew.
  const LocationOptions options = LocationOptions::save(
      target, [&modules](lldb::SBModule &module) { return modules.owns(module); });
  Application application(*this, debugger, target, modules, in, plan, report);
  report.interrupted =
      !application.run(progress, stop, "giving LLDB the JIT symbols of " + in.origin);
  if (!options.empty())
    options.restore(target);
  return report;
}

} // namespace jitsym::plugin
