// Opening and reading the files one process's runtime writes.
#include "Sources.h"

#include <sstream>

#include "jitsym/formats/PerfMapParser.h"
#include "jitsym/symbols/TableSink.h"

namespace jitsym::plugin {
namespace {

// Feeds the table and notes whether a new name may resolve a pending breakpoint.
// Lines for code the jitdump already announced are skipped: its record is richer.
class WatchingSink : public TableSink {
public:
  WatchingSink(SymbolTable &table, const PendingBreakpoints *pending,
               const JitdumpSymbols *dump)
      : TableSink(table), pending_(pending), dump_(dump) {}
  void onEntry(const PerfMapEntry &entry) override {
    if (dump_ && dump_->announced(entry.address))
      return;
    TableSink::onEntry(entry);
    if (pending_ && !matched && pending_->mayResolve(entry.name))
      matched = true;
  }
  // One thread, so every entry passes through onEntry.
  std::unique_ptr<PerfMapSink> makePartSink() override {
    return pending_ || dump_ ? nullptr : TableSink::makePartSink();
  }
  bool matched = false;

private:
  const PendingBreakpoints *pending_;
  const JitdumpSymbols *dump_;
};

} // namespace

bool Sources::name(const std::optional<std::string> &map,
                   const std::optional<std::string> &jitdump, bool force) {
  const bool named = map || jitdump;
  const std::string mapOrigin = map.value_or(mapOrigin_);
  const std::string dumpOrigin = jitdump.value_or(dumpOrigin_);
  force = force || (!named && forced_);
  if (mapOrigin == mapOrigin_ && dumpOrigin == dumpOrigin_ && force == forced_)
    return false;
  forget();
  mapOrigin_ = mapOrigin;
  dumpOrigin_ = dumpOrigin;
  forced_ = force;
  return true;
}

void Sources::open(ProcessSide &side, uint64_t pid,
                   llvm::function_ref<const std::vector<Mapping> &()> mappings,
                   bool lookForJitdump, const std::string &directory) {
  if (!map_) {
    std::optional<std::string> path;
    if (!mapOrigin_.empty()) {
      path = mapOrigin_;
    } else {
      FoundPerfMap found = side.findPerfMap(pid, !dumpOrigin_.empty());
      path = found.path;
      if (!path && found.stale)
        earlier_ = std::move(found.stale);
    }
    if (path) {
      mapFile_ = side.follow(*path, /*text=*/true, forced_, directory);
      map_ = std::make_unique<PerfMapReader>(mapFile_.readPath, mapFile_.trust);
      // The lines of an earlier program with this PID come first: not ours,
      // unless the program rewrote the file since.
      if (earlier_ && earlier_->path == *path && stillBeginsWith(*earlier_))
        if (llvm::Error err = map_->skipEarlierProgram(earlier_->bytes))
          held_.push_back({*path, 0, llvm::toString(std::move(err))});
      earlier_.reset();
    }
  }
  if (!dump_) {
    std::optional<std::string> path;
    if (!dumpOrigin_.empty())
      path = dumpOrigin_;
    else if (lookForJitdump)
      path = side.findJitdump(pid, mappings(), !mapOrigin_.empty());
    if (path) {
      dumpFile_ = side.follow(*path, /*text=*/false, forced_, directory);
      JitdumpSymbolsOptions options;
      options.trackCodeStarts = true;
      options.unwind = &unwind_;
      options.path = dumpFile_.name;
      dump_ = std::make_unique<JitdumpReader>(dumpFile_.readPath, dumpFile_.trust);
      dumpSymbols_ = std::make_unique<JitdumpSymbols>(table_, lines_, std::move(options));
    }
  }
}

llvm::Error Sources::updateCopies(SyncProgress &progress) {
  for (FileMirror *mirror : {mapFile_.mirror.get(), dumpFile_.mirror.get()}) {
    if (!mirror)
      continue;
    const std::string step = "copying " + mirror->name();
    llvm::Expected<MirrorUpdate> update = mirror->update([&](uint64_t done, uint64_t total) {
      progress.update(step, done, total, "bytes");
    });
    if (!update)
      return update.takeError();
  }
  return llvm::Error::success();
}

void Sources::hold(std::vector<Diagnostic> diagnostics) {
  // Named as the user knows the file (a remote file's copy is ours).
  for (Diagnostic &d : diagnostics)
    for (const FollowedFile *file : {&mapFile_, &dumpFile_})
      if (file->mirror && d.file == file->readPath)
        d.file = file->name;
  held_.insert(held_.end(), std::make_move_iterator(diagnostics.begin()),
               std::make_move_iterator(diagnostics.end()));
}

llvm::Expected<bool> Sources::read(ProcessSide &side, lldb::SBTarget &target,
                                   lldb::SBProcess &process, std::string_view aheadOfMap,
                                   const PendingBreakpoints *pending,
                                   const InterruptCheck &interrupt, SourcesRead &result) {
  const bool both = map_ && dump_;
  if (map_) {
    WatchingSink sink(table_, pending, dumpSymbols_.get());
    llvm::Expected<ReadStats> stats = map_->read(sink, interrupt);
    if (!stats)
      return stats.takeError();
    if (stats->rewritten && both)
      return false; // the dump's symbols went with the map's
    sink.finish();
    hold(std::move(sink.diagnostics));
    // Lines the runtime is writing right now (at a write(2) the compile watch
    // stopped): the same lines read from the file later change nothing.
    if (!aheadOfMap.empty() && stats->pendingBytes == 0)
      parsePerfMapChunk(
          aheadOfMap, 1, [&](const PerfMapEntry &entry) { sink.onEntry(entry); },
          [](uint64_t, std::string) {}); // reported when read from the file
    result.mayResolvePending = sink.matched;
    result.interrupted = stats->interrupted;
  }
  // At a write the compile watch stopped only the map's lines matter (they may
  // resolve a pending breakpoint); the dump waits for the next stop.
  if (dump_ && !pending && !result.interrupted) {
    // Provisional: they name code now, the file alone moves the reader.
    const std::string unflushed = side.unflushedBytes(target, process, dumpFile_.readPath);
    llvm::Expected<JitdumpReadStats> stats = dump_->read(*dumpSymbols_, unflushed, interrupt);
    if (!stats)
      return stats.takeError();
    lastUnflushedBytes_ = stats->provisionalBytes;
    result.interrupted = stats->interrupted;
    if (stats->rewritten && both)
      return false; // the map's symbols went with the dump's
    hold(std::exchange(dumpSymbols_->diagnostics, {}));
  }
  return true;
}

void Sources::forget() {
  map_.reset();
  dump_.reset();
  dumpSymbols_.reset();
  mapFile_ = FollowedFile();
  dumpFile_ = FollowedFile();
  table_.clear();
  table_.takeChanges();
  lines_.clear();
  unwind_.clear();
}

void Sources::reset() {
  forget();
  mapOrigin_.clear();
  dumpOrigin_.clear();
  forced_ = false;
  earlier_.reset();
  held_.clear();
  lastUnflushedBytes_ = 0;
}

std::optional<std::string> Sources::staleNote() const {
  if (!earlier_)
    return std::nullopt;
  return earlier_->path +
         " was last written before the process started (an earlier process with this PID "
         "left it): not read, but what is appended from now on is";
}

std::optional<std::string> Sources::mapPath() const {
  if (!map_ || mapFile_.mirror)
    return std::nullopt;
  return map_->path();
}

std::string Sources::names() const {
  std::string names = map_ ? mapFile_.name : "";
  if (dump_)
    names += (names.empty() ? "" : " + ") + dumpFile_.name;
  return names;
}

std::string Sources::status() const {
  std::ostringstream out;
  // A remote file: where its copy is and what the last update copied.
  auto copyOf = [&](const FileMirror &mirror) {
    out << "  copied through " << mirror.transport() << " to " << mirror.localPath()
        << ": bytes " << mirror.last().from << ".." << mirror.last().to << " by the last sync"
        << (mirror.last().replaced ? " (the file was rewritten)" : "") << ", "
        << mirror.transferred() << " bytes transferred in all\n";
  };
  out << "perf map: " << (map_ ? mapFile_.name : "(none found yet)") << "\n";
  if (mapFile_.mirror)
    copyOf(*mapFile_.mirror);
  if (map_)
    out << "  read: " << map_->linesRead() << " lines, " << map_->offset() << " bytes\n";
  out << "jitdump: " << (dump_ ? dumpFile_.name : "(none found yet)") << "\n";
  if (dumpFile_.mirror)
    copyOf(*dumpFile_.mirror);
  if (dump_)
    out << "  read: " << dumpSymbols_->loads + dumpSymbols_->provisionalLoads()
        << " code loads, " << dumpSymbols_->moves << " moves, " << dump_->offset()
        << " bytes (and " << dumpSymbols_->provisionalLoads() << " code loads in "
        << lastUnflushedBytes_ << " bytes from the process's stdio buffer); lines for "
        << lines_.functionCount() << " functions, unwind tables for "
        << unwind_.functionCount() << "\n";
  return out.str();
}

} // namespace jitsym::plugin
