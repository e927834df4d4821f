// Why a JIT location's trap is not set.
#include "RefusedTraps.h"

#include <cinttypes>
#include <cstdio>

namespace jitsym::plugin {
namespace {

const Mapping *mappingOf(const std::vector<Mapping> &mappings, uint64_t address) {
  for (const Mapping &m : mappings)
    if (address >= m.start && address < m.end)
      return &m;
  return nullptr;
}

} // namespace

std::vector<Diagnostic> RefusedTraps::check(
    lldb::SBTarget &target, const std::function<const std::vector<Mapping> &()> &mappings,
    const std::function<bool(lldb::SBModule &)> &ours) {
  std::vector<Diagnostic> notes;
  for (uint32_t b = 0; b < target.GetNumBreakpoints(); ++b) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(b);
    if (!breakpoint.IsValid() || breakpoint.IsInternal() || !breakpoint.IsEnabled())
      continue;
    for (size_t l = 0; l < breakpoint.GetNumLocations(); ++l) {
      lldb::SBBreakpointLocation location = breakpoint.GetLocationAtIndex(l);
      lldb::SBModule module = location.GetAddress().GetModule();
      if (!location.IsEnabled() || location.IsResolved() || !module.IsValid() || !ours(module))
        continue;
      const std::pair<lldb::break_id_t, lldb::break_id_t> key{breakpoint.GetID(),
                                                              location.GetID()};
      if (said_.count(key))
        continue;
      const uint64_t address = location.GetLoadAddress();
      const Mapping *mapping = mappingOf(mappings(), address);
      if (!mapping || !mapping->shared || mapping->write)
        continue;
      said_.insert(key);
      const char *symbol = location.GetAddress().GetSymbol().GetName();
      char where[160];
      std::snprintf(where, sizeof where, "its trap at 0x%" PRIx64 " (%s) is not set", address,
                    symbol ? symbol : "JIT code");
      const std::string mapped = mapping->path.empty() ? "anonymous" : mapping->path;
      notes.push_back(
          {"breakpoint " + std::to_string(breakpoint.GetID()) + "." +
               std::to_string(location.GetID()),
           0,
           std::string(where) + ": the code is in memory the process maps shared and "
               "read-only (" + mapped + "), where the kernel refuses a debugger's write. "
               "PHP: opcache.jit_debug=0x20 (a jitdump) keeps its JIT buffer writable; "
               "elsewhere `breakpoint set -H` asks for a hardware breakpoint"});
    }
  }
  return notes;
}

} // namespace jitsym::plugin
