// One sync: read what the runtime appended, work out which windows changed, and
// hand LLDB only those.
#include "TargetSync.h"

#include <atomic>

#include <algorithm>
#include <map>
#include <sys/stat.h>
#include <sstream>
#include <utility>
#include <unistd.h>

#include "jitsym/MemoryMap.h"
#include "jitsym/PerfMapParser.h"
#include "jitsym/PrivateDir.h"
#include "jitsym/RegionExport.h"
#include "jitsym/Snapshot.h"
#include "jitsym/TableSink.h"

namespace jitsym::plugin {
namespace {

bool isLocal(lldb::SBTarget &target) {
  lldb::SBPlatform platform = target.GetPlatform();
  const char *name = platform.IsValid() ? platform.GetName() : nullptr;
  return name && std::string(name) == "host";
}

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

void TargetSync::forgetSources() {
  publisher_.forget();
  if (modules_)
    modules_->removeAll(target_);
  reader_.reset();
  dumpReader_.reset();
  dumpSymbols_.reset();
  mapMirror_.reset();
  dumpMirror_.reset();
  table_.clear();
  table_.takeChanges();
  lines_.clear();
  unwind_.clear();
}

void TargetSync::reset() {
  forgetSources();
  resetKeepingModules();
}

std::unique_ptr<RegionModules> TargetSync::resetKeepingModules() {
  std::unique_ptr<RegionModules> modules = std::move(modules_);
  forgetSources(); // with no modules: LLDB is not called
  readerOrigin_.clear();
  dumpOrigin_.clear();
  stdio_.forget();
  sourceFiles_ = SourceFiles();
  heldDiagnostics_.clear();
  if (!directory_.empty())
    removeTree(directory_);
  directory_.clear();
  process_.reset();
  sourceRoot_.clear();
  earlierProgram_.reset();
  return modules;
}

llvm::Error TargetSync::beginProcess(const ProcessIdentity &identity) {
  reset();
  llvm::Expected<std::string> root = privateDirectory();
  if (!root)
    return root.takeError();
  llvm::Expected<std::string> session = sessionDirectory(*root);
  if (!session)
    return session.takeError();
  const std::string name =
      "pid" + std::to_string(identity.pid) + "-" + std::to_string(identity.startTime);
  llvm::Expected<std::string> dir = privateSubdirectory(*session, name);
  if (!dir)
    return dir.takeError();
  directory_ = *dir;
  process_ = identity;
  // Files as this process can open them: through /proc/PID/root for a local
  // process (its mount namespace); remote files and a core's are taken on trust.
  sourceRoot_ = readsProc() ? "/proc/" + std::to_string(identity.pid) + "/root" : "";
  modules_ = std::make_unique<RegionModules>(directory_, name);
  return llvm::Error::success();
}

bool TargetSync::isCore() {
  lldb::SBFileSpec core = target_.GetProcess().GetCoreFile();
  return core.IsValid() && core.GetFilename() != nullptr;
}

bool TargetSync::readsProc() { return isLocal(target_) && !isCore(); }

bool TargetSync::readsRemote() {
  lldb::SBPlatform platform = target_.GetPlatform();
  return !isLocal(target_) && !isCore() && platform.IsValid() && platform.IsConnected();
}

const CoreFileInfo *TargetSync::coreFile() {
  if (!coreRead_) {
    coreRead_ = true;
    lldb::SBProcess process = target_.GetProcess();
    const char *plugin = process.GetPluginName();
    char path[4096];
    if (plugin && std::string(plugin) == "elf-core" &&
        process.GetCoreFile().GetPath(path, sizeof(path)) > 0) {
      corePath_ = path;
      llvm::Expected<CoreFileInfo> info = readCoreFile(corePath_);
      if (info)
        core_ = std::move(*info);
      else
        heldDiagnostics_.push_back({corePath_, 0, llvm::toString(info.takeError())});
    }
  }
  return core_ ? &*core_ : nullptr;
}

std::vector<Mapping> TargetSync::memoryMap(const lldb::SBProcess &constProcess) {
  lldb::SBProcess process = constProcess;
  if (readsProc()) {
    const std::string path = "/proc/" + std::to_string(process.GetProcessID()) + "/maps";
    if (auto text = readFile(path))
      return parseMemoryMap(*text, path);
  }
  // An ELF core: its program headers and NT_FILE note (LLDB's regions of it
  // have no file names).
  if (const CoreFileInfo *core = coreFile())
    return core->mappings;
  // Remote targets and minidumps: the memory map LLDB itself has.
  std::vector<Mapping> mappings;
  lldb::SBMemoryRegionInfoList regions = process.GetMemoryRegions();
  for (uint32_t i = 0; i < regions.GetSize(); ++i) {
    lldb::SBMemoryRegionInfo info;
    if (!regions.GetMemoryRegionAtIndex(i, info) || !info.IsMapped())
      continue;
    Mapping m;
    m.start = info.GetRegionBase();
    m.end = info.GetRegionEnd();
    m.read = info.IsReadable();
    m.write = info.IsWritable();
    m.execute = info.IsExecutable();
    if (const char *name = info.GetName())
      m.path = name;
    m.inode = m.path.empty() ? 0 : 1;
    mappings.push_back(std::move(m));
  }
  return mappings;
}

bool TargetSync::lineCanExist(std::string_view file, uint32_t line) {
  return sourceRoot_.empty() || sourceFiles_.lineCanExist(sourceRoot_ + std::string(file), line);
}

llvm::Expected<SyncReport> TargetSync::sync(lldb::SBDebugger &debugger,
                                            const SyncOptions &given) {
  SyncOptions options = given;
  std::vector<Diagnostic> notes;
  if (options.snapshotDir) {
    // A snapshot stands for the files saved in it.
    llvm::Expected<Snapshot> snapshot = readSnapshot(*options.snapshotDir);
    if (!snapshot)
      return snapshot.takeError();
    if (snapshot->perfMap.empty() && snapshot->jitdump.empty())
      return llvm::createStringError(std::errc::invalid_argument,
                                     "%s: the snapshot has no perf map or jitdump",
                                     options.snapshotDir->c_str());
    if (!options.mapPath && !snapshot->perfMap.empty())
      options.mapPath = snapshot->perfMap;
    if (!options.jitdumpPath && !snapshot->jitdump.empty())
      options.jitdumpPath = snapshot->jitdump;
    lldb::SBProcess process = target_.GetProcess();
    if (process.IsValid() && process.GetProcessID() != snapshot->pid)
      notes.push_back({*options.snapshotDir, 0,
                       "a snapshot of process " + std::to_string(snapshot->pid) +
                           ", not of the target's process " +
                           std::to_string(process.GetProcessID())});
  }
  llvm::Expected<SyncReport> report = syncWith(debugger, options, {}, nullptr);
  if (report)
    report->diagnostics.insert(report->diagnostics.begin(), notes.begin(), notes.end());
  return report;
}

llvm::Error TargetSync::checkAgainstCore(SyncReport &report) {
  const uint64_t pid = target_.GetProcess().GetProcessID();
  if (report.added == 0 && report.shadowed > 0) {
    const std::string names = sourceNames();
    const uint64_t outside = report.shadowed;
    forgetSources(); // a mismatch is not followed further
    readerOrigin_.clear();
    dumpOrigin_.clear();
    return llvm::createStringError(
        std::errc::invalid_argument,
        "%s: none of its %llu symbols lies in the anonymous memory of the core "
        "(process %llu): not from this process, or from another run of it",
        names.c_str(), static_cast<unsigned long long>(outside),
        static_cast<unsigned long long>(pid));
  }
  if (dumpSymbols_ && dumpSymbols_->header() && dumpSymbols_->header()->pid != pid)
    report.diagnostics.push_back(
        {dumpReader_->path(), 0,
         "written by process " + std::to_string(dumpSymbols_->header()->pid) +
             ", the core is of process " + std::to_string(pid)});
  if (core_ && core_->truncated())
    report.diagnostics.push_back(
        {corePath_, 0,
         "truncated: " + std::to_string(core_->fileSize) + " bytes of the " +
             std::to_string(core_->bytesNeeded) + " its segments need; the memory of " +
             std::to_string(core_->missing.size()) +
             " mappings is missing (code there cannot be disassembled, frames through it may "
             "not unwind)"});
  return llvm::Error::success();
}

llvm::Expected<ExportReport> TargetSync::exportTo(const std::string &directory) {
  lldb::SBProcess process = target_.GetProcess();
  ExportRequest request;
  if (process.IsValid()) {
    request.mappings = memoryMap(process);
    if (!request.mappings.empty())
      request.space = JitAddressSpace::fromMemoryMap(request.mappings);
  }
  request.table = &table_;
  request.lines = &lines_;
  request.unwind = &unwind_;
  request.triple = target_.GetTriple() ? target_.GetTriple() : "x86_64-pc-linux-gnu";
  request.origin = sourceNames();
  request.claimed = claimedByOtherModules(target_, *modules_);
  auto plausible = [this](std::string_view file, uint32_t line) {
    return lineCanExist(file, line);
  };
  request.plausible = plausible;
  llvm::Expected<ExportResult> result = exportRegions(directory, request);
  if (!result)
    return result.takeError();
  return ExportReport{result->symbols, result->regions.size(), result->outside};
}

llvm::Expected<std::optional<SyncReport>>
TargetSync::syncBeforeWrite(lldb::SBDebugger &debugger, lldb::SBThread &thread,
                            const PendingBreakpoints &pending) {
  lldb::SBProcess process = target_.GetProcess();
  std::optional<WriteCall> call = CompileWatch::writeCallAt(thread);
  if (!call || !readsProc() || !process.IsValid())
    return std::nullopt;
  const uint64_t pid = process.GetProcessID();
  std::optional<std::string> map = reader_ ? reader_->path() : findPerfMap(pid);
  if (!map || !descriptorIsFile(pid, call->fd, *map))
    return std::nullopt;
  // The bytes can be announced ahead only if they land at the end of what was
  // read, on a line boundary; otherwise the file alone is read.
  std::string ahead;
  std::optional<DescriptorPosition> position = readDescriptorPosition(pid, call->fd);
  struct stat st;
  if (position && ::stat(map->c_str(), &st) == 0 &&
      (position->appends || position->offset == static_cast<uint64_t>(st.st_size))) {
    constexpr uint64_t kMaxAhead = 1 << 20;
    ahead.resize(static_cast<size_t>(std::min(call->count, kMaxAhead)));
    lldb::SBError error;
    size_t got = process.ReadMemory(call->buffer, ahead.data(), ahead.size(), error);
    ahead.resize(error.Success() ? got : 0);
  }
  llvm::Expected<SyncReport> report = syncWith(debugger, SyncOptions{}, ahead, &pending);
  if (!report)
    return report.takeError();
  return std::optional<SyncReport>(std::move(*report));
}

std::optional<std::string> TargetSync::findRemotePerfMap(lldb::SBDebugger &debugger,
                                                         uint64_t pid) {
  lldb::SBPlatform platform = target_.GetPlatform();
  const bool android = std::string(platform.GetName() ? platform.GetName() : "") == "remote-android";
  const std::string argv0 = platformProcessArgv0(debugger, target_, pid).value_or("");
  for (const std::string &candidate : remotePerfMapCandidates(pid, argv0, android))
    if (platformFileExists(target_, candidate))
      return candidate;
  return std::nullopt;
}

std::unique_ptr<FileMirror> TargetSync::mirrorOf(lldb::SBDebugger &debugger,
                                                 const std::string &path, const char *copyName,
                                                 bool text) {
  const std::string local = directory_ + "/" + copyName;
  return std::make_unique<FileMirror>(
      std::make_unique<PlatformFile>(debugger, target_, path, local + ".download", text), local);
}

void TargetSync::openSources(lldb::SBDebugger &debugger, uint64_t pid,
                             llvm::function_ref<const std::vector<Mapping> &()> mappings,
                             bool lookForJitdump, bool force) {
  TrustPolicy trust;
  const CoreFileInfo *core = isCore() ? coreFile() : nullptr;
  const bool remote = readsRemote();
  if (!force && readsProc())
    trust.expectedOwner = readProcessUid(pid);
  else if (!force && core && core->process && core->process->uid)
    trust.expectedOwner = *core->process->uid;
  // A remote file is read through a copy in this session's private directory,
  // which the trust checks would only see as ours.
  if (!reader_) {
    std::optional<std::string> path;
    if (!readerOrigin_.empty())
      path = readerOrigin_;
    else if (readsProc()) {
      PerfMapSearch search = searchPerfMap(pid);
      path = search.path;
      if (!path && search.stale)
        earlierProgram_ = EarlierProgram{*search.stale, search.staleBytes};
    }
    else if (remote)
      path = findRemotePerfMap(debugger, pid);
    else if (core && dumpOrigin_.empty()) // a core: found only when nothing is named
      path = findPerfMapOfCore(pid, corePath_);
    if (path && remote) {
      mapMirror_ = mirrorOf(debugger, *path, "remote-perf.map", /*text=*/true);
      reader_ = std::make_unique<PerfMapReader>(mapMirror_->localPath());
    } else if (path) {
      reader_ = std::make_unique<PerfMapReader>(*path, trust);
      // The lines of an earlier program with this PID come first: not ours.
      if (earlierProgram_ && earlierProgram_->path == *path)
        if (llvm::Error err = reader_->skipEarlierProgram(earlierProgram_->bytes))
          heldDiagnostics_.push_back({*path, 0, llvm::toString(std::move(err))});
      earlierProgram_.reset();
    }
  }
  if (!dumpReader_) {
    std::optional<std::string> path;
    if (!dumpOrigin_.empty())
      path = dumpOrigin_;
    else if (readsProc() && lookForJitdump)
      path = findJitdump(pid, mappings());
    else if (remote && lookForJitdump) {
      path = jitdumpInMemoryMap(mappings(), pid, pid);
      if (path && !platformFileExists(target_, *path))
        path.reset();
    } else if (core && readerOrigin_.empty() && lookForJitdump) {
      // Where the process wrote it, if it is still there.
      path = jitdumpInMemoryMap(mappings(), pid, pid);
      if (path && ::access(path->c_str(), R_OK) != 0)
        path.reset();
    }
    if (path) {
      JitdumpSymbolsOptions options;
      options.trackCodeStarts = true;
      options.unwind = &unwind_;
      options.path = *path;
      if (remote) {
        dumpMirror_ = mirrorOf(debugger, *path, "remote-jit.dump", /*text=*/false);
        dumpReader_ = std::make_unique<JitdumpReader>(dumpMirror_->localPath());
        options.path = dumpMirror_->name();
      } else {
        dumpReader_ = std::make_unique<JitdumpReader>(*path, trust);
      }
      dumpSymbols_ = std::make_unique<JitdumpSymbols>(table_, lines_, std::move(options));
    }
  }
}

llvm::Error TargetSync::updateMirrors(SyncProgress &progress) {
  for (FileMirror *mirror : {mapMirror_.get(), dumpMirror_.get()}) {
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

void TargetSync::holdDiagnostics(std::vector<Diagnostic> &diagnostics) {
  for (Diagnostic &d : diagnostics)
    for (FileMirror *mirror : {mapMirror_.get(), dumpMirror_.get()})
      if (mirror && d.file == mirror->localPath())
        d.file = mirror->name();
  heldDiagnostics_.insert(heldDiagnostics_.end(), std::make_move_iterator(diagnostics.begin()),
                          std::make_move_iterator(diagnostics.end()));
  diagnostics.clear();
}

// The dump's records still in the runtime's stdio buffer, when they belong
// right after the file's end (a local process writing at the end of it).
std::string TargetSync::unflushedDumpBytes(lldb::SBProcess &process) {
  if (!readsProc())
    return {};
  const uint64_t pid = process.GetProcessID();
  struct stat st;
  if (::stat(dumpReader_->path().c_str(), &st) != 0)
    return {};
  std::vector<int> atEnd;
  for (int fd : descriptorsOfFile(pid, dumpReader_->path())) {
    std::optional<DescriptorPosition> position = readDescriptorPosition(pid, fd);
    if (position && position->offset == static_cast<uint64_t>(st.st_size))
      atEnd.push_back(fd);
  }
  return stdio_.unflushed(target_, process, atEnd);
}

llvm::Expected<bool> TargetSync::readSources(lldb::SBProcess &process,
                                             std::string_view aheadOfMap,
                                             const PendingBreakpoints *publishOnlyFor,
                                             const InterruptCheck &interrupt, bool &matched,
                                             bool &interrupted) {
  const bool both = reader_ && dumpReader_;
  if (reader_) {
    WatchingSink sink(table_, publishOnlyFor, dumpSymbols_.get());
    llvm::Expected<ReadStats> stats = reader_->read(sink, interrupt);
    if (!stats)
      return stats.takeError();
    if (stats->rewritten && both)
      return false; // the dump's symbols went with the map's
    sink.finish();
    holdDiagnostics(sink.diagnostics);
    // Lines the runtime is writing right now (at a write(2) the compile watch
    // stopped): the same lines read from the file later change nothing.
    if (!aheadOfMap.empty() && stats->pendingBytes == 0)
      parsePerfMapChunk(
          aheadOfMap, 1, [&](const PerfMapEntry &entry) { sink.onEntry(entry); },
          [](uint64_t, std::string) {}); // reported when read from the file
    matched = sink.matched;
    interrupted = stats->interrupted;
  }
  // At a write the compile watch stopped only the map's lines matter (they may
  // resolve a pending breakpoint); the dump waits for the next stop.
  if (dumpReader_ && !publishOnlyFor && !interrupted) {
    // Provisional: they name code now, the file alone moves the reader.
    const std::string unflushed = unflushedDumpBytes(process);
    llvm::Expected<JitdumpReadStats> stats =
        dumpReader_->read(*dumpSymbols_, unflushed, interrupt);
    if (!stats)
      return stats.takeError();
    lastUnflushedBytes_ = stats->provisionalBytes;
    interrupted = stats->interrupted;
    if (stats->rewritten && both)
      return false; // the map's symbols went with the dump's
    holdDiagnostics(dumpSymbols_->diagnostics);
  }
  return true;
}

std::string TargetSync::sourceNames() const {
  std::string names = mapMirror_ ? mapMirror_->name() : reader_ ? reader_->path() : "";
  if (dumpReader_)
    names += (names.empty() ? "" : " + ") + (dumpMirror_ ? dumpMirror_->name() : dumpReader_->path());
  return names;
}

llvm::Expected<SyncReport> TargetSync::syncWith(lldb::SBDebugger &debugger,
                                                const SyncOptions &options,
                                                std::string_view aheadOfFile,
                                                const PendingBreakpoints *publishOnlyFor) {
  auto started = std::chrono::steady_clock::now();
  SyncProgress progress(debugger);
  SyncReport report;
  // Modules this plugin removed stay in LLDB's global module cache while the
  // frames of the stop that replaced them hold them; by the next stop they are
  // free, so drop them now (else `image list jit` still finds them). Not at a
  // write the compile watch stopped: those stops are not the user's.
  if (!publishOnlyFor)
    lldb::SBDebugger::MemoryPressureDetected();
  lldb::SBProcess process = target_.GetProcess();
  lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  bool live = state == lldb::eStateStopped || state == lldb::eStateSuspended;
  if (!live) {
    if (process_ || hasModules())
      reset(); // the process exited or was detached: leave nothing stale
    report.note = "no stopped process";
    return report;
  }
  const uint64_t pid = process.GetProcessID();
  const bool local = readsProc();
  auto ended = [&] {
    reset();
    report = SyncReport{};
    report.note = "process " + std::to_string(pid) +
                  " has ended (killed while stopped?); its JIT modules were removed";
    return report;
  };
  // Killed while LLDB held it stopped: LLDB still shows it stopped, but
  // nothing of it is left to read.
  ProcessIdentity identity{pid, 0};
  if (local) {
    std::optional<ProcessIdentity> live = readLiveProcessIdentity(pid);
    if (!live)
      return ended();
    identity = *live;
  }
  if (local && process_ && *process_ == identity && process.GetStopID() != execStopId_ &&
      process.GetSelectedThread().GetStopReason() == lldb::eStopReasonExec) {
    // An exec keeps the PID and start time; what the old program announced
    // is gone, and its map may go on with the new program's lines.
    execStopId_ = process.GetStopID();
    std::optional<std::string> map = reader_ ? reader_->path() : findPerfMap(pid);
    struct stat st;
    std::optional<EarlierProgram> earlier;
    if (map && ::stat(map->c_str(), &st) == 0)
      earlier = EarlierProgram{*map, static_cast<uint64_t>(st.st_size)};
    if (llvm::Error err = beginProcess(identity))
      return err;
    earlierProgram_ = earlier;
  }
  if (!process_ || *process_ != identity)
    if (llvm::Error err = beginProcess(identity))
      return err;
  // Asked between chunks and windows: Ctrl-C, or the process ending under the
  // sync. Reader threads ask too, hence the atomic.
  std::atomic<bool> endedDuringSync{false};
  const InterruptCheck stop = [&, local] {
    if (progress.interruptRequested())
      return true;
    if (local && processHasEnded(identity)) {
      endedDuringSync = true;
      return true;
    }
    return false;
  };
  // Read once, when needed (not at the writes the compile watch stops at).
  std::optional<std::vector<Mapping>> memory;
  auto mappings = [&]() -> const std::vector<Mapping> & {
    if (!memory)
      memory = memoryMap(process);
    return *memory;
  };

  // Choose the sources: a file named with --map or --jitdump (and --force)
  // sticks until another is named; a plain sync, like the one at every stop,
  // keeps what is followed and looks for what is not found yet.
  const bool named = options.mapPath || options.jitdumpPath;
  const std::string mapOrigin = options.mapPath.value_or(readerOrigin_);
  const std::string dumpOrigin = options.jitdumpPath.value_or(dumpOrigin_);
  const bool force = options.force || (!named && forced_);
  if (mapOrigin != readerOrigin_ || dumpOrigin != dumpOrigin_ || force != forced_) {
    forgetSources(); // different files: start over
    readerOrigin_ = mapOrigin;
    dumpOrigin_ = dumpOrigin;
    forced_ = force;
  }
  bool matched = false, interrupted = false;
  for (int attempt = 0;; ++attempt) {
    openSources(debugger, pid, mappings, !publishOnlyFor, force);
    if (!reader_ && !dumpReader_) {
      lldb::SBPlatform platform = target_.GetPlatform();
      report.note = "no perf map or jitdump for process " + std::to_string(pid) +
                    " (looked for /tmp/perf-" + std::to_string(pid) +
                    ".map, the container and Android locations, and a jit-" +
                    std::to_string(pid) + ".dump in its memory map" +
                    (readsRemote() ? std::string(", on platform ") + platform.GetName() : "") +
                    ")";
      if (earlierProgram_)
        report.note += "; " + earlierProgram_->path +
                       " was last written before the process started (an earlier process "
                       "with this PID left it): not read, but what is appended from now on is";
      return report;
    }
    if (llvm::Error err = updateMirrors(progress))
      return err;
    llvm::Expected<bool> read =
        readSources(process, aheadOfFile, publishOnlyFor, stop, matched, interrupted);
    if (!read)
      return read.takeError();
    if (*read || attempt > 0)
      break;
    forgetSources(); // one source was rewritten: read both again
  }
  report.source = sourceNames();
  if (!publishOnlyFor)
    report.diagnostics = std::exchange(heldDiagnostics_, {});
  // What was read stays in the table; LLDB gets it at the next sync, whose
  // read goes on from where this one stopped.
  if (endedDuringSync)
    return ended();
  if (interrupted) {
    report.interrupted = true;
    report.note = "interrupted while reading; " + std::to_string(table_.size()) +
                  " symbols read so far are kept, and the next jit-sync goes on from there";
    return report;
  }
  // At a write, LLDB hears of new code only when a pending breakpoint may want
  // it; the rest waits in the table for the next sync (publishing is what costs).
  if (publishOnlyFor && !matched) {
    report.note = "nothing a pending breakpoint waits for";
    return report;
  }

  SymbolChanges changes = table_.takeChanges();
  if (!changes.empty() || publisher_.hasLeftovers()) {
    auto plausible = [this](std::string_view file, uint32_t line) {
      return lineCanExist(file, line);
    };
    const Publisher::Inputs inputs{table_, lines_, unwind_, mappings(), plausible, sourceNames()};
    PublishReport published =
        publisher_.publish(debugger, target_, *modules_, inputs, changes, progress, stop);
    report.added = published.added;
    report.removed = published.removed;
    report.shadowed = published.shadowed;
    if (publishOnlyFor)
      holdDiagnostics(published.refusals); // said at the next stop the user sees
    else
      report.diagnostics.insert(report.diagnostics.end(), published.refusals.begin(),
                                published.refusals.end());
    if (published.interrupted) {
      report.interrupted = true;
      report.note = "interrupted while giving LLDB the symbols; " +
                    std::to_string(published.published) + " of " +
                    std::to_string(published.added) +
                    " new symbols given, the rest at the next jit-sync";
    }
  }
  if (endedDuringSync)
    return ended();
  if (!publishOnlyFor && isCore())
    if (llvm::Error err = checkAgainstCore(report))
      return err;

  report.symbols = modules_->symbolCount();
  report.regions = modules_->size();
  ++syncs_;
  report.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
          .count();
  lastMilliseconds_ = report.milliseconds;
  return report;
}

std::string TargetSync::status() const {
  std::ostringstream out;
  out << "auto sync: " << (autoSync ? "on" : "off") << "\n";
  if (!process_) {
    out << "process: none synced\n";
    return out.str();
  }
  out << "process: " << process_->pid << "\n";
  // A remote file: where its copy is and what the last update copied.
  auto copyOf = [&](const FileMirror &mirror) {
    out << "  copied through " << mirror.transport() << " to " << mirror.localPath()
        << ": bytes " << mirror.last().from << ".." << mirror.last().to << " by the last sync"
        << (mirror.last().replaced ? " (the file was rewritten)" : "") << ", "
        << mirror.transferred() << " bytes transferred in all\n";
  };
  out << "perf map: "
      << (mapMirror_ ? mapMirror_->name() : reader_ ? reader_->path() : "(none found yet)")
      << "\n";
  if (mapMirror_)
    copyOf(*mapMirror_);
  if (reader_)
    out << "  read: " << reader_->linesRead() << " lines, " << reader_->offset() << " bytes\n";
  out << "jitdump: "
      << (dumpMirror_ ? dumpMirror_->name() : dumpReader_ ? dumpReader_->path() : "(none found yet)")
      << "\n";
  if (dumpMirror_)
    copyOf(*dumpMirror_);
  if (dumpReader_)
    out << "  read: " << dumpSymbols_->loads + dumpSymbols_->provisionalLoads()
        << " code loads, " << dumpSymbols_->moves << " moves, " << dumpReader_->offset()
        << " bytes (and " << dumpSymbols_->provisionalLoads() << " code loads in "
        << lastUnflushedBytes_ << " bytes from the process's stdio buffer); lines for "
        << lines_.functionCount() << " functions, unwind tables for "
        << unwind_.functionCount() << "\n";
  out << "symbols: " << table_.size() << " known, "
      << (modules_ ? modules_->symbolCount() : 0) << " in LLDB\n";
  out << "regions: " << (modules_ ? modules_->size() : 0) << " modules\n";
  out << "files: " << directory_ << "\n";
  out << "syncs: " << syncs_ << ", last took " << lastMilliseconds_ << " ms\n";
  return out.str();
}

} // namespace jitsym::plugin
