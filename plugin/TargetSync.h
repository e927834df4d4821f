// The JIT symbols of one LLDB target: which process it describes, how that
// process is reached (process/ProcessSide.h), the files followed (Sources.h),
// the symbols and source lines read so far, and the modules given to LLDB
// (Publisher.h, RegionModules.h). One sync is a short sequence: identify the
// process, read what is new, plan it, give it to LLDB.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "CompileWatch.h"
#include "JvmSignals.h"
#include "PendingBreakpoints.h"
#include "BeamSchedulerFrames.h"
#include "PhpFunctions.h"
#include "RefusedTraps.h"
#include "Publisher.h"
#include "RegionModules.h"
#include "Sources.h"
#include "Stop.h"
#include "WriteFilter.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/files/ProcessFiles.h"
#include "jitsym/symbols/SourceFiles.h"
#include "jitsym/symbols/JitTables.h"
#include "lldb/API/LLDB.h"
#include "process/ProcessSide.h"

namespace jitsym::plugin {

// What the user switches for every target (jit-sync --auto, ...).
struct TargetSettings {
  bool autoSync = true;      // sync at every stop
  bool watchCompiles = true; // see CompileWatch
  bool filterWrites = true; // the watch's filter inside the process (WriteFilter)
  bool jvmSignals = true;    // see JvmSignals
  bool portable = false;     // the SB-API-only side for local processes too
};

struct SyncOptions {
  std::optional<std::string> mapPath;     // --map: explicit perf map
  std::optional<std::string> jitdumpPath; // --jitdump: explicit jitdump
  std::optional<std::string> snapshotDir; // --dir: what `jitsym snapshot` saved
  bool force = false; // --force: trust files owned by someone else
};

struct ExportReport {
  uint64_t symbols = 0, regions = 0, outside = 0;
};

struct SyncReport {
  std::string source;          // the files read ("MAP + DUMP"), empty when none
  uint64_t symbols = 0;        // live symbols in LLDB
  uint64_t regions = 0;        // JIT modules
  uint64_t added = 0;          // new since the previous sync
  uint64_t removed = 0;        // replaced or freed since the previous sync
  uint64_t shadowed = 0;       // skipped: file-backed, unmapped or claimed memory
  uint64_t namedByJitLoader = 0; // known symbols LLDB's GDB JIT loader names itself
  double milliseconds = 0;
  std::vector<Diagnostic> diagnostics;
  std::string note;            // why nothing happened, when nothing did
  bool interrupted = false;    // the user stopped it; the next sync goes on
};

class TargetSync {
public:
  explicit TargetSync(lldb::SBTarget target) : target_(target) {}

  // The sync at `stop` (the user's, a core's, an interrupt's, or the command's).
  llvm::Expected<SyncReport> sync(lldb::SBDebugger &debugger, const SyncOptions &options,
                                  const Stop &stop);
  // At the entry of a write(2) call (see CompileWatch): when it appends to the
  // perf map being followed, reads the file and the complete lines about to be
  // written, and gives LLDB what is new if a line may resolve one of `pending`;
  // nothing (no report) for any other write.
  llvm::Expected<std::optional<SyncReport>>
  syncBeforeWrite(lldb::SBDebugger &debugger, lldb::SBThread &thread,
                  const PendingBreakpoints &pending);
  // At jitsym_code_announced() (see CompileWatch): the producer's bytes are in
  // its files; gives LLDB what is new if it may resolve one of `pending`.
  llvm::Expected<SyncReport> syncAtAnnouncement(lldb::SBDebugger &debugger,
                                                const PendingBreakpoints &pending);
  // Writes the symbols synced so far as files another session loads (see
  // core RegionExport.h) into `directory`.
  llvm::Expected<ExportReport> exportTo(lldb::SBDebugger &debugger, const std::string &directory);
  // Removes the modules and forgets everything (relaunch, exit, --clear).
  void reset();
  // reset(), except that the modules are handed back for the caller to remove
  // from the target, with no lock of the plugin held (see Registry.h's
  // ExitWatcher); nothing of LLDB is called.
  std::unique_ptr<RegionModules> resetKeepingModules();
  // The settings changed: a change of side takes effect at the next sync.
  void apply(const TargetSettings &changed);

  bool matches(const lldb::SBTarget &target) const { return target_ == target; }
  lldb::SBTarget &target() { return target_; }
  const TargetSettings &settings() const { return settings_; }
  // Whether the target runs a JVM (see JvmSignals.h); a yes is kept.
  bool runsJvm() {
    if (!isJvm_)
      isJvm_ = jitsym::plugin::runsJvm(target_);
    return isJvm_;
  }
  bool hasModules() const { return modules_ && modules_->size() > 0; }
  // Whether `module` is one of the JIT modules jitsym made for this target.
  bool ownsModule(const lldb::SBModule &module) const { return modules_ && modules_->owns(module); }
  // Whether a perf map of this machine is followed (the compile watch then
  // needs no stop at fwrite).
  bool followsPerfMap() const { return sources_.mapPath().has_value(); }
  std::string status() const;
  const std::optional<ProcessIdentity> &process() const { return process_; }

  // True the first time only: this target's JVM gets its signals passed once.
  bool takeJvmSignalsCheck() { return !std::exchange(jvmSignalsChecked_, true); }
  CompileWatch &compileWatch() { return compileWatch_; }
  WriteFilter &writeFilter() { return writeFilter_; }
  StopHistory &stops() { return stops_; }
  const StopHistory &stops() const { return stops_; }

private:
  llvm::Expected<SyncReport> syncWith(lldb::SBDebugger &debugger, const SyncOptions &options,
                                      const Stop &stop);
  // The side of `process`, chosen once per process (and again at an exec).
  ProcessSide &sideOf(lldb::SBDebugger &debugger, lldb::SBProcess &process);
  // A new process (or the same after an exec): nothing of the last one stays.
  llvm::Error beginProcess(const ProcessIdentity &identity);
  // At an exec stop: the PID and start time stay, what the old program
  // announced does not, and its map may go on with the new program's lines.
  llvm::Error handleExec(lldb::SBDebugger &debugger, lldb::SBProcess &process,
                         const ProcessIdentity &identity);
  // Removes the modules and forgets what was published.
  void forgetPublished();
  // The process ended under LLDB's feet: modules removed, said in the report.
  SyncReport ended(uint64_t pid);
  // What the runtime's own structures add to the new symbols before LLDB is
  // given them (TargetRuntimes.cpp): PHP's function entries and lines,
  // BEAM's unwind rules. Code LLDB already has that got some is made anew.
  void describeFromRuntime(const Stop &stop, lldb::SBProcess &process, const ReadPieces &read,
                           const SymbolChanges &changes);
  std::string runtimeStructuresStatus() const;
  // Whether a source line can exist (see SourceFiles.h).
  bool lineCanExist(std::string_view file, uint32_t line);

  lldb::SBTarget target_;
  TargetSettings settings_;
  std::unique_ptr<ProcessSide> side_;
  uint32_t sideProcess_ = 0; // SBProcess::GetUniqueID of the process side_ is for
  std::optional<ProcessIdentity> process_;
  uint32_t execStopId_ = UINT32_MAX; // the exec stop already handled
  std::string directory_; // this process's private files
  std::optional<std::string> sourceRoot_; // where source files are read, if checked
  bool isJvm_ = false;
  JitTables tables_;
  Sources sources_{tables_};
  SourceFiles sourceFiles_; // line counts, to drop impossible lines
  std::unique_ptr<RegionModules> modules_;
  Publisher publisher_;
  uint64_t syncs_ = 0;
  double lastMilliseconds_ = 0;
  uint64_t namedByJitLoader_ = 0; // at the last publish (PublishReport)
  bool jvmSignalsChecked_ = false;
  CompileWatch compileWatch_;
  WriteFilter writeFilter_; // the watch's filter inside the process, if put in
  StopHistory stops_;
  PhpFunctions php_; // where PHP's JIT functions are entered
  RefusedTraps refusedTraps_; // said once per location
  BeamSchedulerFrames beam_; // where Erlang stacks lead back to C
};

} // namespace jitsym::plugin
