// Reads pending breakpoints through their serialized form, the one public
// description of a breakpoint's resolver ("SymbolName" with SymbolNames or a
// Regex, "FileAndLine" with FileName, ...).
#include "PendingBreakpoints.h"

#include <algorithm>

#include "jitsym/symbols/RuntimeNames.h"

namespace jitsym::plugin {
namespace {

std::string stringValue(lldb::SBStructuredData data) {
  std::string text(data.GetStringValue(nullptr, 0) + 1, '\0');
  text.resize(data.GetStringValue(text.data(), text.size()));
  return text;
}

std::string_view baseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

} // namespace

PendingBreakpoints
PendingBreakpoints::of(lldb::SBTarget &target, lldb::break_id_t ignore,
                       const std::function<bool(lldb::SBModule &)> &isJitModule) {
  PendingBreakpoints pending;
  for (uint32_t i = 0; i < target.GetNumBreakpoints(); ++i) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(i);
    if (breakpoint.GetID() == ignore || !breakpoint.IsEnabled())
      continue;
    // A breakpoint with a location in JIT code wants the code compiled again
    // there, and the copies compiled later (another tier, an OSR entry, a
    // recompile elsewhere) as much as a pending one.
    bool inJitCode = false;
    for (size_t l = 0; l < breakpoint.GetNumLocations(); ++l) {
      lldb::SBBreakpointLocation location = breakpoint.GetLocationAtIndex(l);
      lldb::SBModule module = location.GetAddress().GetModule();
      if (module.IsValid() && isJitModule(module)) {
        pending.locations_.push_back(location.GetLoadAddress());
        inJitCode = true;
      }
    }
    const bool waiting = breakpoint.GetNumLocations() == 0;
    if (!waiting && !inJitCode)
      continue;
    lldb::SBStructuredData resolver =
        breakpoint.SerializeToStructuredData().GetValueForKey("Breakpoint").GetValueForKey(
            "BKPTResolver");
    const std::string type = stringValue(resolver.GetValueForKey("Type"));
    if (waiting && (type == "FileAndLine" || type == "SymbolName"))
      ++pending.waiting_;
    lldb::SBStructuredData options = resolver.GetValueForKey("Options");
    if (type == "FileAndLine") { // lines of a jitdump or a debug object may resolve it
      std::string file = std::string(baseName(stringValue(options.GetValueForKey("FileName"))));
      if (!file.empty())
        pending.files_.push_back(std::move(file));
      continue;
    }
    if (type != "SymbolName")
      continue; // an address, ...: new JIT code cannot resolve it
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
  std::sort(pending.locations_.begin(), pending.locations_.end());
  return pending;
}

void PendingBreakpoints::keepJavaOnly() {
  auto notJava = [](const std::string &name) { return name.find('.') == std::string::npos; };
  auto notJavaFile = [](const std::string &file) {
    for (llvm::StringRef suffix : {".java", ".kt", ".scala"})
      if (llvm::StringRef(file).ends_with(suffix))
        return false;
    return true;
  };
  const size_t dropped =
      std::count_if(names_.begin(), names_.end(), notJava) +
      std::count_if(files_.begin(), files_.end(), notJavaFile);
  names_.erase(std::remove_if(names_.begin(), names_.end(), notJava), names_.end());
  files_.erase(std::remove_if(files_.begin(), files_.end(), notJavaFile), files_.end());
  waiting_ -= std::min(waiting_, dropped);
}

bool PendingBreakpoints::mayResolve(std::string_view symbolName) const {
  auto matches = [this](std::string_view candidate) {
    for (const std::string &name : names_)
      if (candidate.find(name) != std::string_view::npos)
        return true;
    for (const llvm::Regex &pattern : patterns_)
      if (pattern.match(llvm::StringRef(candidate.data(), candidate.size())))
        return true;
    return false;
  };
  if (matches(symbolName))
    return true;
  // The name a user types is not always inside the runtime's: Mono's
  // "Busy:Leaf (int)" is typed "Busy.Leaf" (the alias jitsym adds).
  if (names_.empty() && patterns_.empty())
    return false;
  const std::string typed = nameAsTyped(symbolName);
  return !typed.empty() && matches(typed);
}

bool PendingBreakpoints::mayResolveFile(std::string_view file) const {
  const std::string_view base = baseName(file);
  return std::find(files_.begin(), files_.end(), base) != files_.end();
}

bool PendingBreakpoints::touchesLocation(uint64_t address, uint64_t size) const {
  auto first = std::lower_bound(locations_.begin(), locations_.end(), address);
  return first != locations_.end() && *first - address < size;
}

std::vector<uint64_t> PendingBreakpoints::locationsIn(uint64_t begin, uint64_t end) const {
  auto first = std::lower_bound(locations_.begin(), locations_.end(), begin);
  auto last = std::lower_bound(first, locations_.end(), end);
  return {first, last};
}

jitsym_watch_list PendingBreakpoints::watchList() const {
  return encodeWatchList(names_, locations_, !patterns_.empty() || !files_.empty());
}

std::vector<uint64_t> breakpointLocationAddresses(lldb::SBTarget &target) {
  std::vector<uint64_t> addresses;
  for (uint32_t b = 0; b < target.GetNumBreakpoints(); ++b) {
    lldb::SBBreakpoint breakpoint = target.GetBreakpointAtIndex(b);
    for (size_t l = 0; l < breakpoint.GetNumLocations(); ++l) {
      lldb::SBBreakpointLocation location = breakpoint.GetLocationAtIndex(l);
      if (location.IsValid() && location.IsResolved())
        addresses.push_back(location.GetLoadAddress());
    }
  }
  std::sort(addresses.begin(), addresses.end());
  return addresses;
}

} // namespace jitsym::plugin
