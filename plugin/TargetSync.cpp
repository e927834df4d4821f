// One sync: which process, what the runtime appended, which regions changed,
// and LLDB given only those.
#include "TargetSync.h"

#include "CopiedTraps.h"

#include <atomic>
#include <chrono>
#include <sstream>
#include <utility>

#include "jitsym/files/PrivateDir.h"
#include "FunctionEntries.h"
#include "LldbFeatures.h"
#include "jitsym/objects/RegionExport.h"
#include "jitsym/files/Snapshot.h"

namespace jitsym::plugin {

void TargetSync::apply(const TargetSettings &changed) {
  if (changed.portable != settings_.portable) {
    reset(); // the next sync reaches the process the other way
    side_.reset();
  }
  settings_ = changed;
}

void TargetSync::forgetPublished() {
  publisher_.forget();
  if (modules_)
    modules_->removeAll(target_);
}

void TargetSync::reset() {
  forgetPublished();
  resetKeepingModules();
}

std::unique_ptr<RegionModules> TargetSync::resetKeepingModules() {
  std::unique_ptr<RegionModules> modules = std::move(modules_);
  publisher_.forget(); // with no modules: LLDB is not called
  sources_.reset();
  sourceFiles_ = SourceFiles();
  php_.forget();
  refusedTraps_.forget();
  beam_.forget();
  if (!directory_.empty())
    removeTree(directory_);
  directory_.clear();
  process_.reset();
  sourceRoot_.reset();
  return modules;
}

ProcessSide &TargetSync::sideOf(lldb::SBDebugger &debugger, lldb::SBProcess &process) {
  if (!side_ || sideProcess_ != process.GetUniqueID()) {
    side_ = chooseProcessSide(debugger, target_, settings_.portable);
    sideProcess_ = process.GetUniqueID();
  }
  return *side_;
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
  sourceRoot_ = side_->sourceRoot(identity.pid);
  llvm::Expected<TargetCode> code = targetCode(target_);
  if (!code)
    return code.takeError();
  modules_ = std::make_unique<RegionModules>(directory_, name, std::move(*code));
  return llvm::Error::success();
}

llvm::Error TargetSync::handleExec(lldb::SBDebugger &debugger, lldb::SBProcess &process,
                                   const ProcessIdentity &identity) {
  execStopId_ = process.GetStopID();
  std::optional<std::string> map = sources_.mapPath();
  if (!map)
    map = side_->findPerfMap(identity.pid, false).path;
  std::optional<EarlierMap> before = map ? side_->mapBeforeExec(*map) : std::nullopt;
  side_ = chooseProcessSide(debugger, target_, settings_.portable); // a new program
  if (llvm::Error err = beginProcess(identity))
    return err;
  if (before)
    sources_.skipEarlierProgram(std::move(*before));
  return llvm::Error::success();
}

SyncReport TargetSync::ended(uint64_t pid) {
  reset();
  SyncReport report;
  report.note = "process " + std::to_string(pid) +
                " has ended (killed while stopped?); its JIT modules were removed";
  return report;
}

bool TargetSync::lineCanExist(std::string_view file, uint32_t line) {
  return !sourceRoot_ || sourceFiles_.lineCanExist(*sourceRoot_ + std::string(file), line);
}

llvm::Expected<SyncReport> TargetSync::sync(lldb::SBDebugger &debugger,
                                            const SyncOptions &given, const Stop &stop) {
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
  llvm::Expected<SyncReport> report = syncWith(debugger, options, stop);
  if (report)
    report->diagnostics.insert(report->diagnostics.begin(), notes.begin(), notes.end());
  return report;
}

llvm::Expected<std::optional<SyncReport>>
TargetSync::syncBeforeWrite(lldb::SBDebugger &debugger, lldb::SBThread &thread,
                            const PendingBreakpoints &pending) {
  lldb::SBProcess process = target_.GetProcess();
  if (!process.IsValid())
    return std::nullopt;
  ProcessSide &side = sideOf(debugger, process);
  if (!side.seesDescriptors())
    return std::nullopt;
  std::optional<ProcessIdentity> identity = side.identify(process);
  if (!identity)
    return std::nullopt;
  std::optional<std::string> map = sources_.mapPath();
  if (!map)
    map = side.findPerfMap(identity->pid, false).path;
  std::optional<PendingWrite> write =
      side.pendingWrite(process, thread, map, sources_.dumpPath());
  if (!write)
    return std::nullopt;
  AheadOfFiles ahead;
  // At a write to the map only its lines matter: the memory map, which finds
  // the jitdump, is read at the user's stops only. A write to the jitdump
  // looks for it (the first one comes before any stop of the user's).
  const bool toDump = write->to == PendingWrite::To::Jitdump;
  (toDump ? ahead.dump.emplace() : ahead.map) = std::move(write->bytes);
  llvm::Expected<SyncReport> report =
      syncWith(debugger, SyncOptions{}, Stop::compile(process, pending, std::move(ahead), toDump));
  if (!report)
    return report.takeError();
  return std::optional<SyncReport>(std::move(*report));
}

llvm::Expected<SyncReport> TargetSync::syncAtAnnouncement(lldb::SBDebugger &debugger,
                                                          const PendingBreakpoints &pending) {
  // The producer may have just created its jitdump: look for it.
  lldb::SBProcess process = target_.GetProcess();
  return syncWith(debugger, SyncOptions{}, Stop::compile(process, pending, {}, true));
}

llvm::Expected<SyncReport> TargetSync::syncWith(lldb::SBDebugger &debugger,
                                                const SyncOptions &options,
                                                const Stop &stop) {
  const auto started = std::chrono::steady_clock::now();
  stops_.syncing(stop);
  SyncProgress progress(debugger);
  SyncReport report;
  // Modules this plugin removed stay in LLDB's global module cache while the
  // frames of the stop that replaced them hold them; by the next stop they are
  // free, so drop them now (else `image list jit` still finds them). Not at a
  // write the compile watch stopped: those stops are not the user's.
  if (!stop.isCompile())
    lldb::SBDebugger::MemoryPressureDetected();

  // 1. Which process, reached how.
  lldb::SBProcess process = target_.GetProcess();
  const lldb::StateType state = process.IsValid() ? process.GetState() : lldb::eStateInvalid;
  if (state != lldb::eStateStopped && state != lldb::eStateSuspended) {
    if (process_ || hasModules())
      reset(); // the process exited or was detached: leave nothing stale
    report.note = "no stopped process";
    return report;
  }
  std::optional<ProcessIdentity> identity = sideOf(debugger, process).identify(process);
  if (!identity)
    return ended(process.GetProcessID());
  // The side's PID: the one the runtime names its files after (under
  // qemu-user not LLDB's, ProcessSide.h).
  const uint64_t pid = identity->pid;
  if (process_ && *process_ == *identity && process.GetStopID() != execStopId_ &&
      process.GetSelectedThread().GetStopReason() == lldb::eStopReasonExec)
    if (llvm::Error err = handleExec(debugger, process, *identity))
      return err;
  if (!process_ || *process_ != *identity)
    if (llvm::Error err = beginProcess(*identity))
      return err;
  // Asked between chunks and regions: Ctrl-C, or the process ending under
  // the sync. Reader threads ask too, hence the atomic.
  std::atomic<bool> endedDuringSync{false};
  const InterruptCheck interrupted = [&, id = *identity] {
    if (progress.interruptRequested())
      return true;
    if (side_->hasEnded(id)) {
      endedDuringSync = true;
      return true;
    }
    return false;
  };
  // Read once, when needed (not at the writes the compile watch stops at).
  std::optional<std::vector<Mapping>> memory;
  auto mappings = [&]() -> const std::vector<Mapping> & {
    if (!memory)
      memory = side_->memoryMap(process);
    return *memory;
  };

  // 2. What is new in the files.
  if (sources_.name(options.mapPath, options.jitdumpPath, options.force))
    forgetPublished(); // different files: start over
  SourcesRead read;
  for (int attempt = 0;; ++attempt) {
    sources_.open(*side_, pid, mappings, stop.readsJitdump(), directory_);
    sources_.hold(side_->takeDiagnostics());
    if (!sources_.any()) {
      report.note = "no perf map or jitdump for process " + std::to_string(pid) +
                    " (looked for " + side_->whereLooked(pid) + ")";
      if (std::optional<std::string> stale = sources_.staleNote())
        report.note += "; " + *stale;
      return report;
    }
    if (llvm::Error err = sources_.updateCopies(progress))
      return err;
    llvm::Expected<bool> complete = sources_.read(*side_, process, stop, interrupted, read);
    if (!complete)
      return complete.takeError();
    if (*complete || attempt > 0)
      break;
    forgetPublished(); // one source was rewritten: read both again
    sources_.forget();
  }
  report.source = sources_.names();
  if (!stop.isCompile())
    report.diagnostics = sources_.takeHeld();
  // What was read stays in the table; LLDB gets it at the next sync, whose
  // read goes on from where this one stopped.
  if (endedDuringSync)
    return ended(pid);
  if (read.interrupted) {
    report.interrupted = true;
    report.note = "interrupted while reading; " + std::to_string(tables_.symbols.size()) +
                  " symbols read so far are kept, and the next jit-sync goes on from there";
    return report;
  }
  // At a write, LLDB hears of new code only when a pending breakpoint may want
  // it; the rest waits in the table for the next sync (publishing is what costs).
  // Caught between the truncation and the new lines: LLDB keeps the names it
  // has (the runtime's code did not go) until the map holds the new ones; the
  // next sync reads them and replaces the old all at once.
  if (read.mapEmptied && !sources_.dumpSymbols()) {
    report.note = "the perf map is being written anew (no whole line yet); the JIT "
                  "names stay as they were until it holds lines again";
    report.symbols = modules_->symbolCount();
    report.regions = modules_->size();
    return report;
  }
  // Before LLDB sets sites in the moved code (when its module is made anew).
  if (stop.isCompile() && !read.movedFromLocations.empty())
    restoreCopiedTraps(process, stop.pending(), read.movedFromLocations);
  for (uint64_t address : read.remakeAt)
    publisher_.remake(address);
  if (stop.isCompile() && !read.mayResolvePending && read.remakeAt.empty()) {
    report.note = "nothing a pending breakpoint waits for";
    return report;
  }

  // 3. Planned and given to LLDB, region by region.
  SymbolChanges changes = tables_.symbols.takeChanges();
  auto readPieces = [this, &process](const std::vector<AddressRange> &pieces) {
    return side_ ? side_->readPieces(process, pieces) : readPiecesThroughLLDB(process, pieces);
  };
  describeFromRuntime(stop, process, readPieces, changes);
  if (!changes.empty() || publisher_.wantsPublish(*modules_)) {
    auto plausible = [this](std::string_view file, uint32_t line) {
      return lineCanExist(file, line);
    };
    const Publisher::Inputs inputs{tables_, mappings(), plausible,
                                   sources_.names(), readPieces,
                                   side_ ? side_->directRead(process) : DirectRead()};
    PublishReport published =
        publisher_.publish(debugger, target_, *modules_, inputs, changes, progress, interrupted);
    report.added = published.added;
    report.removed = published.removed;
    report.shadowed = published.shadowed;
    namedByJitLoader_ = published.namedByJitLoader;
    if (stop.isCompile())
      sources_.hold(std::move(published.refusals)); // said at the next stop the user sees
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
    return ended(pid);

  // 4. The side's own checks (a core's: do the files belong to it?).
  if (!stop.isCompile()) {
    SyncFacts facts{pid, report.added, report.shadowed, report.source, std::nullopt,
                    sources_.dumpName()};
    if (const JitdumpSymbols *dump = sources_.dumpSymbols(); dump && dump->header())
      facts.jitdumpPid = dump->header()->pid;
    if (llvm::Error err = side_->checkSync(facts, report.diagnostics)) {
      forgetPublished(); // a mismatch is not followed further
      sources_.reset();
      return err;
    }
  }

  // 5. Traps LLDB could not write into JIT code, and why (at the user's stops).
  if (!stop.isCompile() && modules_->size() > 0) {
    std::vector<Diagnostic> refused = refusedTraps_.check(
        target_, mappings, [this](lldb::SBModule &module) { return ownsModule(module); });
    report.diagnostics.insert(report.diagnostics.end(), refused.begin(), refused.end());
  }

  report.symbols = modules_->symbolCount();
  report.regions = modules_->size();
  ++syncs_;
  report.milliseconds =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
          .count();
  lastMilliseconds_ = report.milliseconds;
  report.namedByJitLoader = namedByJitLoader_; // as the last publish found it
  return report;
}

std::string TargetSync::status() const {
  std::ostringstream out;
  out << "auto sync: " << (settings_.autoSync ? "on" : "off") << "\n";
  out << lldbFeatureNotes();
  if (!process_) {
    out << "process: none synced\n";
    return out.str();
  }
  out << "process: " << process_->pid << " (" << (side_ ? side_->kind() : "?") << ")\n";
  out << sources_.status();
  out << "symbols: " << tables_.symbols.size() << " known, "
      << (modules_ ? modules_->symbolCount() : 0) << " in LLDB";
  if (namedByJitLoader_)
    out << "; " << namedByJitLoader_
        << " of them in code LLDB's GDB JIT loader names itself (modules JIT(0x...), with "
           "the object's own symbols and lines; settings set plugin.jit-loader.gdb.enable "
           "off gives it to jitsym)";
  out << "\n";
  out << "regions: " << (modules_ ? modules_->size() : 0) << " modules\n";
  out << publisher_.runtimeFrameStatus();
  out << runtimeStructuresStatus();
  out << "files: " << directory_ << "\n";
  out << "syncs: " << syncs_ << ", last took " << lastMilliseconds_ << " ms\n";
  return out.str();
}

} // namespace jitsym::plugin
