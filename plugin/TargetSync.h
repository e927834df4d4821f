// The JIT symbol state of one LLDB target: which process it describes, the perf
// map and jitdump being followed, the symbols and source lines read so far and
// the modules given to LLDB.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "CompileWatch.h"
#include "JvmSignals.h"
#include "PendingBreakpoints.h"
#include "PlatformFile.h"
#include "StdioBuffer.h"
#include "SyncProgress.h"
#include "Publisher.h"
#include "RegionModules.h"
#include "jitsym/CoreFile.h"
#include "jitsym/Diagnostic.h"
#include "jitsym/FileMirror.h"
#include "jitsym/JitdumpReader.h"
#include "jitsym/Interrupt.h"
#include "jitsym/JitdumpSymbols.h"
#include "jitsym/LineTables.h"
#include "jitsym/PerfMapReader.h"
#include "jitsym/ProcessFiles.h"
#include "jitsym/SourceFiles.h"
#include "jitsym/SymbolTable.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

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
  uint64_t regions = 0;        // JIT modules (windows)
  uint64_t added = 0;          // new since the previous sync
  uint64_t removed = 0;        // replaced or freed since the previous sync
  uint64_t shadowed = 0;       // skipped: file-backed or unmapped memory
  double milliseconds = 0;
  std::vector<Diagnostic> diagnostics;
  std::string note;            // why nothing happened, when nothing did
  bool interrupted = false;    // the user stopped it; the next sync goes on
};

class TargetSync {
public:
  explicit TargetSync(lldb::SBTarget target) : target_(target) {}

  llvm::Expected<SyncReport> sync(lldb::SBDebugger &debugger, const SyncOptions &options);
  // At the entry of a write(2) call (see CompileWatch): when it appends to the
  // perf map being followed, reads the file and the complete lines about to be
  // written, and gives LLDB what is new if a line may resolve one of `pending`;
  // nothing (no report) for any other write.
  llvm::Expected<std::optional<SyncReport>>
  syncBeforeWrite(lldb::SBDebugger &debugger, lldb::SBThread &thread,
                  const PendingBreakpoints &pending);
  // Writes the symbols synced so far as files another session loads (see
  // core RegionExport.h) into `directory`.
  llvm::Expected<ExportReport> exportTo(const std::string &directory);
  // Removes the modules and forgets everything (relaunch, exit, --clear).
  void reset();
  // reset(), except that the modules are handed back for the caller to remove
  // from the target, with no lock of the plugin held (see Plugin.cpp's
  // ExitWatcher); nothing of LLDB is called.
  std::unique_ptr<RegionModules> resetKeepingModules();

  bool matches(const lldb::SBTarget &target) const { return target_ == target; }
  lldb::SBTarget &target() { return target_; }
  bool autoSync = true;
  bool watchCompiles = true; // see CompileWatch
  bool jvmSignals = true;    // see JvmSignals
  bool jvmSignalsChecked = false; // whether this target's JVM signals were seen to
  // Whether the target runs a JVM (see JvmSignals.h); a yes is kept.
  bool runsJvm() {
    if (!isJvm_)
      isJvm_ = jitsym::plugin::runsJvm(target_);
    return isJvm_;
  }
  CompileWatch compileWatch;
  std::string lastStopError; // the stop hook's last error, said once
  bool hasModules() const { return modules_ && modules_->size() > 0; }
  std::string status() const;
  const std::optional<ProcessIdentity> &process() const { return process_; }

private:
  llvm::Expected<SyncReport> syncWith(lldb::SBDebugger &debugger, const SyncOptions &options,
                                      std::string_view aheadOfFile,
                                      const PendingBreakpoints *publishOnlyFor);
  llvm::Error beginProcess(const ProcessIdentity &identity);
  std::vector<Mapping> memoryMap(const lldb::SBProcess &process);
  // The process is a core file (ELF or minidump): nothing of it is in /proc.
  bool isCore();
  // A live process of this machine, whose /proc entries describe it.
  bool readsProc();
  // A live process behind a platform connection (lldb-server platform,
  // remote-android): its files are read through the platform.
  bool readsRemote();
  // An ELF core's memory map and process, from its program headers and notes.
  const CoreFileInfo *coreFile();
  // Checks a core's named sources against the core; adds warnings to `report`.
  llvm::Error checkAgainstCore(SyncReport &report);
  // Forgets what was read and given to LLDB, keeping the process.
  void forgetSources();
  // Opens the sources not open yet: the ones named, else the ones found.
  void openSources(lldb::SBDebugger &debugger, uint64_t pid,
                   llvm::function_ref<const std::vector<Mapping> &()> mappings,
                   bool lookForJitdump, bool force);
  // The first remote perf map candidate that exists on the platform.
  std::optional<std::string> findRemotePerfMap(lldb::SBDebugger &debugger, uint64_t pid);
  // A local copy of remote file `path`, read by the readers in its place.
  std::unique_ptr<FileMirror> mirrorOf(lldb::SBDebugger &debugger, const std::string &path,
                                       const char *copyName, bool text);
  // Brings the copies of remote files up to date before they are read.
  llvm::Error updateMirrors(SyncProgress &progress);
  // Keeps diagnostics for the next report, naming remote files as the user knows them.
  void holdDiagnostics(std::vector<Diagnostic> &diagnostics);
  // Reads both sources; false when one was rewritten and both must be read again.
  llvm::Expected<bool> readSources(lldb::SBProcess &process, std::string_view aheadOfMap,
                                   const PendingBreakpoints *publishOnlyFor,
                                   const InterruptCheck &interrupt, bool &matched,
                                   bool &interrupted);
  std::string unflushedDumpBytes(lldb::SBProcess &process);
  // Whether a source line can exist (see SourceFiles.h).
  bool lineCanExist(std::string_view file, uint32_t line);
  std::string sourceNames() const;

  lldb::SBTarget target_;
  // A map whose first bytes an earlier program with this PID wrote (one that
  // exec'd, or ended before the PID was given again), and how many.
  struct EarlierProgram {
    std::string path;
    uint64_t bytes = 0;
  };
  std::optional<EarlierProgram> earlierProgram_;
  uint32_t execStopId_ = UINT32_MAX; // the exec stop already handled
  bool isJvm_ = false;
  // The ELF core read for this target, and any error reading it.
  std::optional<CoreFileInfo> core_;
  std::string corePath_;
  bool coreRead_ = false;
  std::optional<ProcessIdentity> process_;
  std::string sourceRoot_; // where source files are read: "/proc/PID/root", or "" (trusted)
  std::string directory_;
  // The sources. Both may be followed at once (node --perf-prof
  // --perf-basic-prof): for code both announce, the jitdump's record wins and
  // the map's line is skipped, so nothing is listed twice.
  std::unique_ptr<PerfMapReader> reader_;
  std::string readerOrigin_; // the --map path, empty when found automatically
  std::unique_ptr<JitdumpReader> dumpReader_;
  std::unique_ptr<JitdumpSymbols> dumpSymbols_;
  std::string dumpOrigin_;   // the --jitdump path, empty when found automatically
  // On a remote target, the local copies the readers read (else null).
  std::unique_ptr<FileMirror> mapMirror_, dumpMirror_;
  StdioBuffer stdio_;
  uint64_t lastUnflushedBytes_ = 0; // of stdio_'s, what named code at the last sync
  bool forced_ = false;
  SymbolTable table_;
  LineTables lines_;
  UnwindTables unwind_; // from CODE_UNWINDING_INFO
  SourceFiles sourceFiles_; // line counts, to drop impossible lines
  // Malformed lines read at a write the compile watch stopped, where nothing is
  // shown: reported by the next sync the user sees.
  std::vector<Diagnostic> heldDiagnostics_;
  std::unique_ptr<RegionModules> modules_;
  Publisher publisher_;
  uint64_t syncs_ = 0;
  double lastMilliseconds_ = 0;
};

} // namespace jitsym::plugin
