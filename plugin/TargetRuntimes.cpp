// The sync's step that reads the runtimes' own structures (TargetSync.h):
// one place that knows which runtime gets which reader.
#include "TargetSync.h"

namespace jitsym::plugin {

void TargetSync::describeFromRuntime(const Stop &stop, lldb::SBProcess &process,
                                     const ReadPieces &read, const SymbolChanges &changes) {
  // At a compile stop the stopped thread is the runtime's compiler.
  lldb::SBThread compiling = stop.isCompile() ? process.GetSelectedThread() : lldb::SBThread();
  for (uint64_t start : php_.describe(target_, compiling, read, changes.added, tables_))
    publisher_.remake(start);
  if (runsBeam(target_))
    for (uint64_t start : beam_.describe(target_, read, changes.added, tables_, followsPerfMap()))
      publisher_.remake(start);
}

std::string TargetSync::runtimeStructuresStatus() const {
  std::string out;
  for (const std::optional<std::string> &line : {php_.status(), beam_.status()})
    if (line)
      out += *line + "\n";
  return out;
}

} // namespace jitsym::plugin
