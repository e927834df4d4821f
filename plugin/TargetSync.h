// The JIT symbol state of one LLDB target: which process it describes, the perf
// map being followed, the symbol table read so far and the modules given to LLDB.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CompileWatch.h"
#include "PendingBreakpoints.h"
#include "WindowModules.h"
#include "jitsym/Diagnostic.h"
#include "jitsym/PerfMapReader.h"
#include "jitsym/ProcessFiles.h"
#include "jitsym/SymbolTable.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

struct SyncOptions {
  std::optional<std::string> mapPath; // --map: explicit file
  bool force = false;                 // --force: trust a map owned by someone else
};

struct SyncReport {
  std::string source;          // the map read, or empty when none was found
  uint64_t symbols = 0;        // live symbols in LLDB
  uint64_t regions = 0;        // JIT modules (windows)
  uint64_t added = 0;          // new since the previous sync
  uint64_t removed = 0;        // replaced or freed since the previous sync
  uint64_t shadowed = 0;       // skipped: file-backed or unmapped memory
  double milliseconds = 0;
  std::vector<Diagnostic> diagnostics;
  std::string note;            // why nothing happened, when nothing did
};

// This debugger's directory below the private directory.
std::string sessionDirectoryName();

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
  // Removes the modules and forgets everything (relaunch, exit, --clear).
  void reset();

  bool matches(const lldb::SBTarget &target) const { return target_ == target; }
  lldb::SBTarget &target() { return target_; }
  bool autoSync = true;
  bool watchCompiles = true; // see CompileWatch
  CompileWatch compileWatch;
  bool hasModules() const { return modules_ && modules_->size() > 0; }
  std::string status() const;
  const std::optional<ProcessIdentity> &process() const { return process_; }

private:
  llvm::Expected<SyncReport> syncWith(lldb::SBDebugger &debugger, const SyncOptions &options,
                                      std::string_view aheadOfFile,
                                      const PendingBreakpoints *publishOnlyFor);
  llvm::Error beginProcess(const ProcessIdentity &identity);
  std::vector<Mapping> memoryMap(const lldb::SBProcess &process);
  llvm::Error publish(lldb::SBDebugger &debugger, SymbolChanges &changes, SyncReport &report);
  bool namedByOtherModule(uint64_t address);

  lldb::SBTarget target_;
  std::optional<ProcessIdentity> process_;
  std::string directory_;
  std::unique_ptr<PerfMapReader> reader_;
  std::string readerOrigin_; // the --map path, empty when found automatically
  bool forced_ = false;
  SymbolTable table_;
  // Malformed lines read at a write the compile watch stopped, where nothing is
  // shown: reported by the next sync the user sees.
  std::vector<Diagnostic> heldDiagnostics_;
  std::unique_ptr<WindowModules> modules_;
  uint64_t syncs_ = 0;
  double lastMilliseconds_ = 0;
};

} // namespace jitsym::plugin
