// The files jit-sync follows for one process, and their readers: the perf map
// and the jitdump (both at once for `node --perf-prof --perf-basic-prof`: the
// jitdump's record wins for code both announce, and the map's line is skipped).
// A file named with --map or --jitdump sticks until another is named; the
// others are looked for at every sync until found (ProcessSide.h finds them).
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Stop.h"
#include "SyncProgress.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/base/Interrupt.h"
#include "jitsym/files/JitdumpReader.h"
#include "jitsym/symbols/JitTables.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/files/PerfMapReader.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "process/ProcessSide.h"

namespace jitsym::plugin {

// What one read of the sources did.
struct SourcesRead {
  bool interrupted = false;
  // What was read may resolve a pending breakpoint (at the compile watch).
  bool mayResolvePending = false;
  // The map was emptied to be written anew (HotSpot's jcmd Compiler.perfmap
  // truncates it, then writes every line again): caught in between.
  bool mapEmptied = false;
  // Where code was announced that a breakpoint wants: code again under one of
  // its locations (compiled again in place, moved, freed), or code by a name it
  // waits for. Those modules are made anew: LLDB moves a location only to a new
  // module, and resolves a breakpoint again only in a module where it has no
  // location yet (a second copy of a method, another tier, lands in the same
  // module as the first).
  std::vector<uint64_t> remakeAt;
  // Code a runtime moved (jitdump CODE_MOVE) from under a location: its new
  // bytes are a copy of the old, the debugger's trap in them too.
  std::vector<JitCodeMove> movedFromLocations;
};

class Sources {
public:
  explicit Sources(JitTables &tables) : tables_(tables) {}

  // The files the user names with --map and --jitdump (and --force): a file
  // named once sticks until another is named; a sync that names nothing keeps
  // what is followed. True when that differs from what was followed: the
  // readers start over.
  bool name(const std::optional<std::string> &map, const std::optional<std::string> &jitdump,
            bool force);
  // Opens the sources not open yet: the ones named, else the ones `side` finds.
  void open(ProcessSide &side, uint64_t pid,
            llvm::function_ref<const std::vector<Mapping> &()> mappings, bool lookForJitdump,
            const std::string &directory);
  bool any() const { return map_ || dump_; }
  // Brings the local copies of remote files up to date.
  llvm::Error updateCopies(SyncProgress &progress);
  // Reads what is new in both (the jitdump unless `stop` reads only the
  // map). At a compile stop, what the runtime is writing is read too, and what
  // is read is watched for what may resolve the stop's pending breakpoints or
  // touch their locations. False when one source was rewritten and both must
  // be read again (forget(), then open and read).
  llvm::Expected<bool> read(ProcessSide &side, lldb::SBProcess &process, const Stop &stop,
                            const InterruptCheck &interrupt, SourcesRead &result);

  // Forgets the readers and what they read (the table too); keeps the names.
  void forget();
  // forget(), and the names, the earlier program and held diagnostics too.
  void reset();

  // At an exec stop: the map as it is holds the old program's lines.
  void skipEarlierProgram(EarlierMap earlier) { earlier_ = std::move(earlier); }
  // Why nothing was read, when an earlier process's map was found.
  std::optional<std::string> staleNote() const;
  // The perf map and the jitdump being followed, if any (paths on this machine).
  std::optional<std::string> mapPath() const;
  std::optional<std::string> dumpPath() const;
  // "MAP + DUMP", as the user knows them.
  std::string names() const;
  // Problems found while reading, said by the next sync the user sees.
  void hold(std::vector<Diagnostic> diagnostics);
  std::vector<Diagnostic> takeHeld() { return std::exchange(held_, {}); }
  const JitdumpSymbols *dumpSymbols() const { return dumpSymbols_.get(); }
  const std::string &dumpName() const { return dumpFile_.name; }
  // The lines --status prints about the files.
  std::string status() const;

private:
  JitTables &tables_; // what is read goes here
  std::string mapOrigin_, dumpOrigin_; // named by the user, else empty
  bool forced_ = false;
  FollowedFile mapFile_, dumpFile_;
  std::unique_ptr<PerfMapReader> map_;
  std::unique_ptr<JitdumpReader> dump_;
  std::unique_ptr<JitdumpSymbols> dumpSymbols_;
  // A map whose first bytes an earlier program with this PID wrote (one that
  // exec'd, or ended before the PID was given again), and how many.
  std::optional<EarlierMap> earlier_;
  // Map lines read ahead at a write the compile watch stopped, until the file
  // holds them: read again from it, they announce nothing new.
  std::set<std::string> seenAhead_;
  uint64_t lastUnflushedBytes_ = 0; // from the stdio buffer at the last read
  std::vector<Diagnostic> held_;
};

} // namespace jitsym::plugin
