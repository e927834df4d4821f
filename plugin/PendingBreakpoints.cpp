// Reads pending breakpoints through their serialized form, the one public
// description of a breakpoint's resolver ("SymbolName" with SymbolNames or a
// Regex, "FileAndLine", ...).
#include "PendingBreakpoints.h"

namespace jitsym::plugin {
namespace {

std::string stringValue(lldb::SBStructuredData data) {
  std::string text(data.GetStringValue(nullptr, 0) + 1, '\0');
  text.resize(data.GetStringValue(text.data(), text.size()));
  return text;
}

} // namespace

PendingBreakpoints PendingBreakpoints::of(lldb::SBTarget &target, lldb::break_id_t ignore) {
  PendingBreakpoints pending;
  for (uint32_t i = 0; i < target.GetNumBreakpoints(); ++i) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(i);
    if (breakpoint.GetID() == ignore || !breakpoint.IsEnabled() ||
        breakpoint.GetNumLocations() != 0)
      continue;
    lldb::SBStructuredData resolver =
        breakpoint.SerializeToStructuredData().GetValueForKey("Breakpoint").GetValueForKey(
            "BKPTResolver");
    if (stringValue(resolver.GetValueForKey("Type")) != "SymbolName")
      continue; // file and line, address, ...: a perf map cannot resolve them
    lldb::SBStructuredData options = resolver.GetValueForKey("Options");
    lldb::SBStructuredData names = options.GetValueForKey("SymbolNames");
    for (size_t n = 0; n < names.GetSize(); ++n) {
      std::string name = stringValue(names.GetItemAtIndex(n));
      if (!name.empty())
        pending.names_.push_back(std::move(name));
    }
    lldb::SBStructuredData regex = options.GetValueForKey("Regex");
    if (regex.IsValid()) {
      llvm::Regex pattern(stringValue(regex));
      // A pattern llvm::Regex cannot read still waits for something: match all.
      pending.patterns_.push_back(pattern.isValid() ? std::move(pattern) : llvm::Regex(""));
    }
  }
  return pending;
}

bool PendingBreakpoints::mayResolve(std::string_view symbolName) const {
  for (const std::string &name : names_)
    if (symbolName.find(name) != std::string_view::npos)
      return true;
  for (const llvm::Regex &pattern : patterns_)
    if (pattern.match(llvm::StringRef(symbolName.data(), symbolName.size())))
      return true;
  return false;
}

} // namespace jitsym::plugin
