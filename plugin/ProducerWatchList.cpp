// What the compile watch tells the producers in the process: the watch list
// (core formats/WatchList.h) written into each producer built on
// libjitsym-writer, so that its hook stops the process only for code a
// breakpoint may want. The rest of the watch is in CompileWatch.cpp.
#include "CompileWatch.h"

#include <string_view>

#include "jitsym/formats/WatchList.h"

namespace jitsym::plugin {

void CompileWatch::tellProducers(lldb::SBTarget &target) {
  lldb::SBProcess process = target.GetProcess();
  const lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  if (state != lldb::eStateStopped && state != lldb::eStateRunning)
    return;
  // With no watch the hook has no breakpoint: every call is free, and a list
  // left behind would hide announcements from the next debugger's first stop.
  const jitsym_watch_list list = plan_.allowed && !pending_.empty()
                                     ? pending_.watchList()
                                     : encodeWatchList({}, {}, /*everything=*/true);
  lldb::SBSymbolContextList found = target.FindSymbols(kWatchList, lldb::eSymbolTypeAny);
  for (uint32_t i = 0; i < found.GetSize(); ++i) {
    lldb::SBSymbol symbol = found.GetContextAtIndex(i).GetSymbol();
    if (!symbol.IsValid() || std::string_view(symbol.GetName() ? symbol.GetName() : "") != kWatchList)
      continue;
    const lldb::addr_t address = symbol.GetStartAddress().GetLoadAddress(target);
    if (address == LLDB_INVALID_ADDRESS)
      continue;
    // A running process (a breakpoint set through the SB API) may read the
    // list meanwhile: it says "no list" (announce everything) until whole.
    lldb::SBError error;
    const uint32_t noList = 0;
    const bool running = state != lldb::eStateStopped;
    if (running && process.WriteMemory(address, &noList, sizeof noList, error) != sizeof noList)
      continue;
    const auto *bytes = reinterpret_cast<const char *>(&list);
    const size_t version = sizeof list.version; // written last
    if (process.WriteMemory(address + version, bytes + version, sizeof list - version, error) ==
            sizeof list - version &&
        process.WriteMemory(address, bytes, version, error) == version)
      told_ = process.GetUniqueID(); // a failure: that producer stops for all
  }
}

} // namespace jitsym::plugin
