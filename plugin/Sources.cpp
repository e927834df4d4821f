// Opening and reading the files one process's runtime writes.
#include "Sources.h"

#include <sstream>

#include "jitsym/files/AppendedFile.h"
#include "jitsym/formats/PerfMapParser.h"
#include "jitsym/files/TableSink.h"

namespace jitsym::plugin {
namespace {

// Feeds the table and notes whether a new name may resolve a pending breakpoint.
// Lines for code the jitdump already announced are skipped: its record is richer.
class WatchingSink : public TableSink {
public:
  WatchingSink(SymbolTable &table, const Stop &stop, const JitdumpSymbols *dump,
               std::set<std::string> &seenAhead)
      : TableSink(table), stop_(stop), dump_(dump), seenAhead_(seenAhead) {}
  // `ahead`: a line the runtime is writing right now (not yet in the file).
  void onEntry(const PerfMapEntry &entry, bool ahead) {
    if (dump_ && dump_->announced(entry.address))
      return;
    TableSink::onEntry(entry);
    bool repeated = false;
    if (ahead || !seenAhead_.empty()) {
      const std::string key = std::to_string(entry.address) + " " + std::to_string(entry.size) +
                              " " + std::string(entry.name);
      repeated = ahead ? !seenAhead_.insert(key).second : seenAhead_.erase(key) > 0;
    }
    if (!stop_.isCompile() || repeated)
      return;
    if (stop_.pending().touchesLocation(entry.address, entry.size)) {
      remakeAt.push_back(entry.address);
    } else if (stop_.pending().mayResolve(entry.name)) {
      remakeAt.push_back(entry.address);
      matched = true;
    }
  }
  void onEntry(const PerfMapEntry &entry) override { onEntry(entry, false); }
  // One thread, so every entry passes through onEntry.
  std::unique_ptr<PerfMapSink> makePartSink() override {
    return stop_.isCompile() || dump_ ? nullptr : TableSink::makePartSink();
  }
  bool matched = false;
  std::vector<uint64_t> remakeAt;

private:
  const Stop &stop_;
  const JitdumpSymbols *dump_;
  std::set<std::string> &seenAhead_;
};

// Passes the jitdump's records on to its symbols and notes whether one may
// resolve a pending breakpoint or changes the code under a location.
class WatchingDumpSink : public JitdumpSink {
public:
  WatchingDumpSink(JitdumpSymbols &symbols, const PendingBreakpoints &pending)
      : symbols_(symbols), pending_(pending) {}
  void onRewrite() override { symbols_.onRewrite(); }
  void onHeader(const JitdumpHeader &header) override { symbols_.onHeader(header); }
  void onRecord(const JitdumpRecord &record, uint64_t offset) override {
    watch(record);
    symbols_.onRecord(record, offset);
  }
  void onDiagnostic(const Diagnostic &diagnostic) override { symbols_.onDiagnostic(diagnostic); }
  void beginProvisional() override { symbols_.beginProvisional(); }
  void onProvisionalRecord(const JitdumpRecord &record, uint64_t offset,
                           bool seenBefore) override {
    if (!seenBefore)
      watch(record);
    symbols_.onProvisionalRecord(record, offset, seenBefore);
  }
  void endProvisional() override { symbols_.endProvisional(); }
  void onConfirmedRecord(const JitdumpRecord &record, uint64_t offset) override {
    symbols_.onConfirmedRecord(record, offset);
  }
  void onWithdrawnRecord(uint64_t offset) override { symbols_.onWithdrawnRecord(offset); }
  bool matched = false;
  std::vector<uint64_t> remakeAt;
  std::vector<JitCodeMove> movedFromLocations;

private:
  void watch(const JitdumpRecord &record) {
    auto touch = [&](uint64_t address, uint64_t size) {
      if (pending_.touchesLocation(address, size))
        remakeAt.push_back(address);
    };
    if (const auto *load = std::get_if<JitCodeLoad>(&record.body)) {
      touch(load->codeAddress, load->codeSize);
      if (pending_.mayResolve(load->name)) {
        remakeAt.push_back(load->codeAddress);
        matched = true;
      }
    } else if (const auto *move = std::get_if<JitCodeMove>(&record.body)) {
      if (pending_.touchesLocation(move->oldAddress, move->codeSize))
        movedFromLocations.push_back(*move);
      touch(move->oldAddress, move->codeSize);
      touch(move->newAddress, move->codeSize);
    } else if (const auto *unload = std::get_if<JitCodeUnload>(&record.body)) {
      touch(unload->codeAddress, unload->codeSize);
    } else if (const auto *lines = std::get_if<JitDebugInfo>(&record.body)) {
      for (const JitLineEntry &entry : lines->entries)
        matched = matched || pending_.mayResolveFile(entry.file);
    }
  }

  JitdumpSymbols &symbols_;
  const PendingBreakpoints &pending_;
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
      options.unwind = &tables_.unwind;
      options.path = dumpFile_.name;
      dump_ = std::make_unique<JitdumpReader>(dumpFile_.readPath, dumpFile_.trust);
      dumpSymbols_ = std::make_unique<JitdumpSymbols>(tables_.symbols, tables_.lines, std::move(options));
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

llvm::Expected<bool> Sources::read(ProcessSide &side, lldb::SBProcess &process,
                                   const Stop &stop, const InterruptCheck &interrupt,
                                   SourcesRead &result) {
  lldb::SBTarget target = process.GetTarget();
  const AheadOfFiles &ahead = stop.ahead();
  const bool both = map_ && dump_;
  if (map_) {
    WatchingSink sink(tables_.symbols, stop, dumpSymbols_.get(), seenAhead_);
    llvm::Expected<ReadStats> stats = map_->read(sink, interrupt);
    if (!stats)
      return stats.takeError();
    if (stats->rewritten && both)
      return false; // the dump's symbols went with the map's
    sink.finish();
    hold(std::move(sink.diagnostics));
    // Lines the runtime is writing right now (at a write(2) the compile watch
    // stopped), or, at any other stop, lines it still holds in its stdio FILE
    // (Mono's --jitmap fprintf's its map and flushes it only when the 4 KiB
    // buffer fills): the code the user stopped in is named at once, and the
    // same lines read from the file later change nothing. They continue the
    // file's unterminated last line, if it has one.
    std::string unwritten =
        !ahead.map.empty() ? ahead.map : side.unflushedBytes(target, process, mapFile_.readPath);
    if (!unwritten.empty() && stats->pendingBytes > 0) {
      std::optional<std::string> started =
          bytesAt(mapFile_.readPath, map_->offset(), static_cast<size_t>(stats->pendingBytes));
      unwritten = started ? *started + unwritten : std::string();
    }
    if (!unwritten.empty())
      parsePerfMapChunk(
          unwritten, 1, [&](const PerfMapEntry &entry) { sink.onEntry(entry, true); },
          [](uint64_t, std::string) {}); // reported when read from the file
    result.mayResolvePending = sink.matched;
    result.mapEmptied = stats->emptied;
    result.remakeAt = std::move(sink.remakeAt);
    result.interrupted = stats->interrupted;
  }
  // At a write the compile watch stopped only the map's lines matter (they may
  // resolve a pending breakpoint); the dump waits for the next stop.
  if (dump_ && stop.readsJitdump() && !result.interrupted) {
    // Provisional: they name code now, the file alone moves the reader.
    const std::string unflushed =
        ahead.dump ? *ahead.dump : side.unflushedBytes(target, process, dumpFile_.readPath);
    std::optional<WatchingDumpSink> watching;
    if (stop.isCompile())
      watching.emplace(*dumpSymbols_, stop.pending());
    JitdumpSink &sink = watching ? static_cast<JitdumpSink &>(*watching) : *dumpSymbols_;
    llvm::Expected<JitdumpReadStats> stats = dump_->read(sink, unflushed, interrupt);
    if (watching) {
      result.mayResolvePending = result.mayResolvePending || watching->matched;
      result.remakeAt.insert(result.remakeAt.end(), watching->remakeAt.begin(),
                             watching->remakeAt.end());
      result.movedFromLocations = std::move(watching->movedFromLocations);
    }
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
  seenAhead_.clear();
  map_.reset();
  dump_.reset();
  dumpSymbols_.reset();
  mapFile_ = FollowedFile();
  dumpFile_ = FollowedFile();
  tables_.clear();
  tables_.symbols.takeChanges();
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

std::optional<std::string> Sources::dumpPath() const {
  if (!dump_ || dumpFile_.mirror)
    return std::nullopt;
  return dumpFile_.readPath;
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
        << tables_.lines.functionCount() << " functions, unwind tables for "
        << tables_.unwind.functionCount() << "\n";
  if (dump_) {
    const JitdumpReader::Damage damage = dump_->damage();
    if (damage.stepsLost)
      out << "  damaged: reading lost its step " << damage.stepsLost
          << " time(s) and found the next record again (" << damage.bytesSkipped
          << " bytes skipped)\n";
    if (damage.corrupt)
      out << "  unreadable after byte offset " << *damage.lostAt
          << ": no record found after a bad one; nothing after it is read\n";
    else if (damage.lostAt)
      out << "  looking for the next record after a bad one at byte offset " << *damage.lostAt
          << " (as the file grows)\n";
  }
  return out.str();
}

} // namespace jitsym::plugin
