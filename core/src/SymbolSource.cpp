// Whole-file loading for offline use.
#include "jitsym/SymbolSource.h"

#include "jitsym/PerfMapReader.h"
#include "jitsym/TableSink.h"

namespace jitsym {

llvm::Expected<LoadedSymbols> loadPerfMap(const std::string &path) {
  LoadedSymbols loaded;
  PerfMapReader reader(path);
  TableSink sink(loaded.table);
  llvm::Expected<ReadStats> stats = reader.read(sink);
  if (!stats)
    return stats.takeError();
  sink.finish();
  loaded.diagnostics = std::move(sink.diagnostics);
  loaded.entries = stats->entries;
  loaded.pendingBytes = stats->pendingBytes;
  loaded.table.forgetChanges();
  return loaded;
}

} // namespace jitsym
