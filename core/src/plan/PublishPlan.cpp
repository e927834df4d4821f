// Planning a publish: which regions are made anew, which get deltas, which go.
#include "jitsym/plan/PublishPlan.h"

#include "jitsym/symbols/RuntimeNames.h"

#include <algorithm>
#include <unordered_set>

namespace jitsym {
namespace {

// The keys of the held modules whose section starts in [begin, end).
std::vector<uint64_t> keysIn(const HeldRegions &held, uint64_t begin, uint64_t end) {
  std::vector<uint64_t> keys;
  for (auto it = held.lower_bound(begin); it != held.end() && it->first < end; ++it)
    keys.push_back(it->first);
  return keys;
}

// The keys of the held modules whose section overlaps [begin, end).
std::vector<uint64_t> keysOverlapping(const HeldRegions &held, uint64_t begin, uint64_t end) {
  std::vector<uint64_t> keys;
  auto it = held.upper_bound(begin);
  if (it != held.begin() && std::prev(it)->second.section.end > begin)
    --it;
  for (; it != held.end() && it->first < end; ++it)
    if (it->second.section.end > begin)
      keys.push_back(it->first);
  return keys;
}

bool inAny(const std::vector<AddressRange> &ranges, uint64_t address) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const AddressRange &r) { return r.contains(address); });
}

} // namespace

const char *describe(RemakeReason reason) {
  switch (reason) {
  case RemakeReason::Delta:
    return "new symbols added";
  case RemakeReason::NewRegion:
    return "a new region";
  case RemakeReason::PlanChanged:
    return "its window's plan changed";
  case RemakeReason::CodeRemoved:
    return "code in it was replaced or freed";
  case RemakeReason::BecameCode:
    return "memory it held as data became executable";
  case RemakeReason::Asked:
    return "breakpoint locations wait for it";
  case RemakeReason::FrameRule:
    return "new code needs another unwind rule";
  case RemakeReason::LeftBehind:
    return "an earlier publish did not finish it";
  }
  return "";
}

std::optional<EntryRule> heldEntryRule(const HeldRegions &held, const Architecture &arch,
                                       const Symbol &symbol) {
  auto it = held.upper_bound(symbol.address);
  if (it == held.begin())
    return std::nullopt;
  const HeldRegion &region = std::prev(it)->second;
  if (!region.section.contains(symbol.address) || region.dataSymbols > 0 ||
      !region.framePointerCode)
    return std::nullopt;
  const EntryRule rule = region.framePointerCode->ruleAt(symbol.address);
  // Where FDEs describe prologues, covered code without one either came
  // after the module was made (in a delta) or could not be told: read again.
  if (arch.fdeHoldsAtEntry && rule.framePointer == FramePointer::Kept && !rule.prologue)
    return std::nullopt;
  return rule;
}

EntryProbe runtimeAwareProbe(const SymbolTable &table, std::optional<RuntimeFrame> runtimeFrame,
                             EntryProbe read) {
  if (!runtimeFrame)
    return read;
  return [&table, read = std::move(read)](uint64_t start, uint64_t size) {
    if (const Symbol *symbol = table.findByAddress(start); symbol && symbol->address == start)
      switch (phpJitCodeOf(table.name(*symbol))) {
      case PhpJitCode::OnVmFrame:
        return EntryRule{FramePointer::RuntimeFrame, std::nullopt};
      case PhpJitCode::Own:
        return EntryRule{FramePointer::NotKept, std::nullopt};
      case PhpJitCode::NotPhp:
        break;
      }
    return read(start, size);
  };
}

bool wantsRuntimeFrame(const SymbolTable &table, const std::vector<const Symbol *> &added) {
  return std::any_of(added.begin(), added.end(), [&](const Symbol *symbol) {
    return phpJitCodeOf(table.name(*symbol)) != PhpJitCode::NotPhp;
  });
}

PublishPlan::PublishPlan(const Inputs &in, const SymbolChanges &changes, PublishCarry &carry,
                         EntryReader &entries)
    : planner_(in.table, in.space, in.claimed),
      probe_(runtimeAwareProbe(in.table, in.runtimeFrame,
                               [&entries](uint64_t start, uint64_t size) {
                                 return entries.at(start, size);
                               })) {
  for (const AddressRange &range : in.jitLoader)
    in.table.forEachInRange(range.start, range.end, [&](const Symbol &symbol) {
      namedByJitLoader_ += range.contains(symbol.address);
    });
  decide(in, changes, carry, entries);
  addSteps(in);
  replan_.clear();
  stale_.clear();
  addedByKey_.clear();
}

// Which windows are planned again and which held modules made anew, and why.
void PublishPlan::decide(const Inputs &in, const SymbolChanges &changes, PublishCarry &carry,
                         EntryReader &entries) {
  const HeldRegions &held = in.held;
  auto windowKey = [&](uint64_t address) { return planner_.windowOf(address).start; };
  // The first reason given for a window or module is the one kept.
  auto remake = [&](uint64_t key, RemakeReason why) {
    stale_.emplace(key, why);
    replan_.emplace(windowKey(key), why);
  };
  // All of a window an earlier publish did not finish (what it missed is not
  // in `changes`; the window may have split or grown since).
  for (uint64_t address : std::exchange(carry.leftBehind, {})) {
    const AddressRange window = planner_.windowOf(address);
    replan_.emplace(window.start, RemakeReason::LeftBehind);
    for (uint64_t key : keysIn(held, window.start, window.end))
      stale_.emplace(key, RemakeReason::LeftBehind);
  }
  // Memory that became executable: its regions' data symbols may be code now.
  const uint64_t digest = planner_.executableDigest();
  if (digest != carry.executableDigest)
    for (const auto &[key, region] : held)
      if (region.dataSymbols > 0)
        remake(key, RemakeReason::BecameCode);
  carry.executableDigest = digest;
  for (uint64_t address : std::exchange(carry.remake, {}))
    for (uint64_t key : keysOverlapping(held, address, address + 1))
      remake(key, RemakeReason::Asked);
  for (const RemovedRange &range : changes.removed) {
    ++removed_;
    for (uint64_t key : keysOverlapping(held, range.address, range.end))
      remake(key, RemakeReason::CodeRemoved);
  }
  // New symbols by region. One whose region has no module yet, or a module
  // with another section (the memory map changed), has its window planned again.
  for (const Symbol *symbol : changes.added) {
    std::optional<AddressRange> section = planner_.sectionOf(symbol->address);
    if (!section) {
      shadowed_ += !inAny(in.jitLoader, symbol->address);
      continue;
    }
    ++added_;
    addedByKey_[section->start].push_back(symbol);
    auto module = held.find(section->start);
    if (module == held.end())
      replan_.emplace(windowKey(symbol->address), RemakeReason::NewRegion);
    else if (module->second.section != *section)
      replan_.emplace(windowKey(symbol->address), RemakeReason::PlanChanged);
    else if (auto why = stale_.find(section->start); why != stale_.end())
      replan_.emplace(windowKey(symbol->address), why->second);
    // A region that grows past its window's end moves where the next starts.
    for (AddressRange w = planner_.windowOf(symbol->address);
         w.end < section->end && w.end > w.start;) {
      w = planner_.windowOf(w.end);
      replan_.emplace(w.start, RemakeReason::PlanChanged);
    }
  }
  // A module whose section the planner no longer gives (its window split or
  // joined others since) overlaps windows other than its own: all of them are
  // planned again, so that none keeps a module over another's code.
  std::vector<uint64_t> todo;
  for (const auto &entry : replan_)
    todo.push_back(entry.first);
  while (!todo.empty()) {
    const AddressRange window = planner_.windowOf(todo.back());
    todo.pop_back();
    for (uint64_t key : keysOverlapping(held, window.start, window.end)) {
      const HeldRegion &module = held.at(key);
      if (planner_.sectionOf(key) == module.section)
        continue;
      for (AddressRange w = planner_.windowOf(module.section.start);;
           w = planner_.windowOf(w.end)) {
        if (replan_.emplace(w.start, RemakeReason::PlanChanged).second)
          todo.push_back(w.start);
        if (w.end >= module.section.end || w.end <= w.start)
          break;
      }
    }
  }
  // New code whose unwind rule its module's object does not give: the region
  // is made anew. The entries of new code in held modules are read in one batch.
  std::vector<std::pair<uint64_t, uint64_t>> code;
  for (const auto &[key, symbols] : addedByKey_)
    if (held.count(key))
      for (const Symbol *symbol : symbols)
        if (!isData(*symbol))
          code.emplace_back(symbol->address, symbol->size);
  entries.prefetch(std::move(code));
  for (const auto &[key, symbols] : addedByKey_) {
    auto module = held.find(key);
    if (module == held.end() || stale_.count(key) || !module->second.framePointerCode)
      continue;
    const FramePointerCode &rules = *module->second.framePointerCode;
    if (!std::all_of(symbols.begin(), symbols.end(), [&](const Symbol *symbol) {
          return isData(*symbol) || frameRuleHolds(rules, *symbol, probe_);
        }))
      remake(key, RemakeReason::FrameRule);
  }
  // The code of the windows made anew: what LLDB's modules say of old
  // functions is kept, new ones are read. With no module held (a first sync)
  // every function is new, and no set of its symbols is made.
  std::unordered_set<const Symbol *> isNew;
  if (!held.empty())
    isNew.insert(changes.added.begin(), changes.added.end());
  for (const auto &[start, why] : replan_) {
    const AddressRange window = planner_.windowOf(start);
    in.table.forEachInRange(window.start, window.end, [&](const Symbol &symbol) {
      if (isData(symbol))
        return;
      std::optional<EntryRule> was;
      if (!held.empty() && !isNew.count(&symbol))
        was = heldEntryRule(held, in.arch, symbol);
      if (was)
        known_.push_back({symbol.address, symbol.size, *was});
      else
        toRead_.emplace_back(symbol.address, symbol.size);
    });
  }
}

// The steps, window by window in address order.
void PublishPlan::addSteps(const Inputs &in) {
  const HeldRegions &held = in.held;
  std::map<uint64_t, RemakeReason> windows = replan_;
  for (const auto &entry : addedByKey_)
    windows.emplace(planner_.windowOf(entry.first).start, RemakeReason::Delta);
  auto addedTo = [&](uint64_t key) {
    auto found = addedByKey_.find(key);
    return found == addedByKey_.end() ? std::vector<const Symbol *>() : found->second;
  };
  // A window planned again may reach a later one (a region that grows past
  // its end): that one is planned again too, later in the map.
  for (auto it = windows.begin(); it != windows.end(); ++it) {
    const AddressRange bounds = planner_.windowOf(it->first);
    Window window{it->first, {}, {}};
    auto replanned = replan_.find(it->first);
    if (replanned == replan_.end()) {
      for (auto a = addedByKey_.lower_bound(bounds.start);
           a != addedByKey_.end() && a->first < bounds.end; ++a)
        window.steps.push_back({a->first, RemakeReason::Delta, std::nullopt, a->second});
      windows_.push_back(std::move(window));
      continue;
    }
    std::set<uint64_t> kept;
    for (PlannedRegion &region : planner_.planWindow(bounds)) {
      const uint64_t key = region.section.start;
      kept.insert(key);
      auto module = held.find(key);
      auto stale = stale_.find(key);
      const AddressRange section = region.section;
      if (module == held.end())
        window.steps.push_back({key, RemakeReason::NewRegion, std::move(region), addedTo(key)});
      else if (module->second.section != section)
        window.steps.push_back({key, RemakeReason::PlanChanged, std::move(region), addedTo(key)});
      else if (stale != stale_.end())
        window.steps.push_back({key, stale->second, std::move(region), addedTo(key)});
      else if (std::vector<const Symbol *> symbols = addedTo(key); !symbols.empty())
        window.steps.push_back({key, RemakeReason::Delta, std::nullopt, std::move(symbols)});
      for (AddressRange w = bounds; w.end < section.end && w.end > w.start;) {
        w = planner_.windowOf(w.end);
        replan_.emplace(w.start, RemakeReason::PlanChanged);
        windows.emplace(w.start, RemakeReason::PlanChanged);
      }
    }
    for (uint64_t key : keysIn(held, bounds.start, bounds.end))
      if (!kept.count(key))
        window.removed.push_back(key);
    windows_.push_back(std::move(window));
  }
}

} // namespace jitsym
