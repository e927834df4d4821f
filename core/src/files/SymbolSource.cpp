// Whole-file loading for offline use.
#include "jitsym/files/SymbolSource.h"

#include "jitsym/arch/Architecture.h"
#include "jitsym/files/JitdumpReader.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/files/PerfMapReader.h"
#include "jitsym/files/TableSink.h"

namespace jitsym {
namespace {

llvm::Error appendPerfMap(const std::string &path, LoadedSymbols &loaded) {
  loaded.format = SourceFormat::PerfMap;
  PerfMapReader reader(path);
  TableSink sink(loaded.tables.symbols);
  llvm::Expected<ReadStats> stats = reader.read(sink);
  if (!stats)
    return stats.takeError();
  sink.finish();
  loaded.diagnostics.insert(loaded.diagnostics.end(), sink.diagnostics.begin(),
                            sink.diagnostics.end());
  loaded.entries += stats->entries;
  loaded.pendingBytes += stats->pendingBytes;
  return llvm::Error::success();
}

llvm::Error appendJitdump(const std::string &path, LoadOptions options,
                          LoadedSymbols &loaded) {
  loaded.format = SourceFormat::Jitdump;
  JitdumpReader reader(path);
  reader.setWriterDone(true); // whole files, for offline use
  JitdumpSymbolsOptions sinkOptions;
  sinkOptions.path = path;
  sinkOptions.unwind = options.unwindTables ? &loaded.tables.unwind : nullptr;
  JitdumpSymbols sink(loaded.tables.symbols, loaded.tables.lines, std::move(sinkOptions));
  llvm::Expected<JitdumpReadStats> stats = reader.read(sink);
  if (!stats)
    return stats.takeError();
  loaded.diagnostics.insert(loaded.diagnostics.end(), sink.diagnostics.begin(),
                            sink.diagnostics.end());
  loaded.entries += sink.loads;
  loaded.pendingBytes += stats->pendingBytes;
  if (reader.header())
    loaded.architecture = std::string(tripleArchOfElfMachine(reader.header()->elfMachine));
  return llvm::Error::success();
}

llvm::Expected<bool> isJitdumpFile(const std::string &path) {
  // Opened with the readers' checks, to look at the first bytes.
  AppendedFile file(path, {});
  llvm::Expected<AppendedFile::Opened> opened = file.open(0);
  if (!opened)
    return opened.takeError();
  std::string head;
  (void)preadExact(opened->fd, 0, 4, head);
  return looksLikeJitdump(head);
}

llvm::Error append(const std::string &path, LoadOptions options, LoadedSymbols &loaded) {
  llvm::Expected<bool> jitdump = isJitdumpFile(path);
  if (!jitdump)
    return jitdump.takeError();
  return *jitdump ? appendJitdump(path, options, loaded) : appendPerfMap(path, loaded);
}

llvm::Expected<LoadedSymbols> finished(llvm::Error error, LoadedSymbols &loaded) {
  if (error)
    return error;
  loaded.tables.symbols.forgetChanges();
  // Applied, so the lines and unwind tables are in step; the handler that kept
  // them so points into `loaded`, which is about to move.
  loaded.tables.symbols.onOwnedGone(nullptr);
  return std::move(loaded);
}

} // namespace

llvm::Expected<LoadedSymbols> loadPerfMap(const std::string &path) {
  LoadedSymbols loaded;
  return finished(appendPerfMap(path, loaded), loaded);
}

llvm::Expected<LoadedSymbols> loadJitdump(const std::string &path, LoadOptions options) {
  LoadedSymbols loaded;
  return finished(appendJitdump(path, options, loaded), loaded);
}

llvm::Expected<LoadedSymbols> loadSymbols(const std::string &path, LoadOptions options) {
  LoadedSymbols loaded;
  return finished(append(path, options, loaded), loaded);
}

llvm::Expected<LoadedSymbols> loadSymbols(const std::vector<std::string> &paths,
                                          LoadOptions options) {
  LoadedSymbols loaded;
  for (const std::string &path : paths)
    if (llvm::Error err = append(path, options, loaded))
      return err;
  return finished(llvm::Error::success(), loaded);
}

} // namespace jitsym
