// Whole-file loading for offline use.
#include "jitsym/SymbolSource.h"

#include "jitsym/JitdumpSymbols.h"
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

llvm::Expected<LoadedSymbols> loadJitdump(const std::string &path) {
  LoadedSymbols loaded;
  loaded.format = SourceFormat::Jitdump;
  JitdumpReader reader(path);
  JitdumpSymbols sink(loaded.table, loaded.lines);
  llvm::Expected<JitdumpReadStats> stats = reader.read(sink);
  if (!stats)
    return stats.takeError();
  loaded.diagnostics = std::move(sink.diagnostics);
  loaded.entries = sink.loads;
  loaded.pendingBytes = stats->pendingBytes;
  if (reader.header())
    loaded.architecture = architectureForElfMachine(reader.header()->elfMachine);
  loaded.table.forgetChanges();
  return loaded;
}

llvm::Expected<LoadedSymbols> loadSymbols(const std::string &path) {
  // Opened with the readers' checks, to look at the first bytes.
  AppendedFile file(path, {});
  llvm::Expected<AppendedFile::Opened> opened = file.open(0);
  if (!opened)
    return opened.takeError();
  std::string head;
  (void)preadExact(opened->fd, 0, 4, head);
  return looksLikeJitdump(head) ? loadJitdump(path) : loadPerfMap(path);
}

} // namespace jitsym
