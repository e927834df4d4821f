// Location options carried across the remaking of a JIT module.
#include "LocationOptions.h"

namespace jitsym::plugin {

LocationOptions LocationOptions::save(lldb::SBTarget &target,
                                      const std::function<bool(lldb::SBModule &)> &ours) {
  LocationOptions options;
  for (uint32_t b = 0; b < target.GetNumBreakpoints(); ++b) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(b);
    if (!breakpoint.IsValid() || breakpoint.IsInternal())
      continue;
    const char *own = breakpoint.GetCondition();
    const std::string breakpointCondition = own ? own : "";
    for (size_t l = 0; l < breakpoint.GetNumLocations(); ++l) {
      lldb::SBBreakpointLocation location = breakpoint.GetLocationAtIndex(l);
      lldb::SBModule module = location.GetAddress().GetModule();
      if (!location.IsValid() || !module.IsValid() || !ours(module))
        continue;
      Saved saved;
      saved.breakpoint = breakpoint.GetID();
      saved.location = location.GetID();
      saved.address = location.GetLoadAddress();
      saved.enabled = location.IsEnabled();
      const char *condition = location.GetCondition();
      saved.condition = condition ? condition : "";
      saved.ignoreCount = location.GetIgnoreCount();
      saved.autoContinue = location.GetAutoContinue();
      if (saved.enabled && saved.condition == breakpointCondition &&
          saved.ignoreCount == breakpoint.GetIgnoreCount() &&
          saved.autoContinue == breakpoint.GetAutoContinue())
        continue; // nothing of its own
      options.saved_.push_back(std::move(saved));
    }
  }
  return options;
}

size_t LocationOptions::restore(lldb::SBTarget &target) const {
  size_t given = 0;
  for (const Saved &saved : saved_) {
    lldb::SBBreakpoint breakpoint = target.FindBreakpointByID(saved.breakpoint);
    for (size_t l = 0; breakpoint.IsValid() && l < breakpoint.GetNumLocations(); ++l) {
      lldb::SBBreakpointLocation location = breakpoint.GetLocationAtIndex(l);
      if (location.GetID() == saved.location || location.GetLoadAddress() != saved.address ||
          !location.GetAddress().GetModule().IsValid())
        continue;
      location.SetEnabled(saved.enabled);
      location.SetCondition(saved.condition.c_str());
      location.SetIgnoreCount(saved.ignoreCount);
      location.SetAutoContinue(saved.autoContinue);
      ++given;
    }
  }
  return given;
}

} // namespace jitsym::plugin
