// How jit-sync reaches one process: its identity, its memory map, finding and
// opening its perf map and jitdump, the trust checks, where its source files
// are, whether it has ended, and what its stdio buffer holds. Chosen once per
// process (chooseProcessSide), so that nothing else asks whether a process is
// local, remote or a core file. Four sides:
//
//   local     a process of this machine, read through /proc (and glibc's stdio
//             internals, StdioBuffer.h)
//   remote    a process behind a platform connection (lldb-server platform,
//             remote-android): files read through the platform (PlatformFile.h)
//   core      a core file: its memory map from the core itself (CoreFile.h)
//   portable  the SB API only: no /proc, no glibc internals, local files read
//             as files. What a platform without /proc (macOS, FreeBSD, qemu-user)
//             runs; `jit-sync --portable on` selects it on Linux.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/files/AppendedFile.h"
#include "jitsym/base/Diagnostic.h"
#include "jitsym/files/FileMirror.h"
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/files/ProcessFiles.h"
#include "lldb/API/LLDB.h"
#include "llvm/Support/Error.h"

namespace jitsym::plugin {

// A file jit-sync follows, as the readers see it.
struct FollowedFile {
  std::string name;     // as the user knows it, for messages (PLATFORM:PATH when remote)
  std::string readPath; // what the readers open
  TrustPolicy trust;
  // A remote file's local copy, brought up to date before each read.
  std::unique_ptr<FileMirror> mirror;
};

// A perf map found for a process when none was named.
struct FoundPerfMap {
  std::optional<std::string> path;
  // A map last written before the process started (an earlier process with
  // the PID left it): not read, but what is appended from now on is.
  std::optional<EarlierMap> stale;
};

// A write the compile watch stopped at, to one of the files followed.
struct PendingWrite {
  enum class To { PerfMap, Jitdump } to;
  // After the file's end: the lines a write(2) lands there (empty when it
  // lands elsewhere); for a jitdump written through stdio, what its FILE's
  // buffer holds and then what the fwrite adds.
  std::string bytes;
};

// What a sync found, for the side's own checks (a core's, against its file).
struct SyncFacts {
  uint64_t pid = 0;
  uint64_t added = 0, shadowed = 0;
  std::string sources;                 // the files read
  std::optional<uint32_t> jitdumpPid;  // the PID in the jitdump's header
  std::string jitdumpName;
};

// Pieces (sorted by start) grouped into runs read at once: a run takes the
// next piece while it starts less than 1 KiB after the run's end and the run
// stays within 64 KiB. A few bytes more, far fewer reads for dense code.
struct PieceRun {
  AddressRange range;
  size_t first = 0, last = 0; // the pieces it holds
};
std::vector<PieceRun> runsOfPieces(const std::vector<AddressRange> &pieces);

// ProcessSide::readPieces through SBProcess::ReadMemory, which gives the bytes
// under LLDB's breakpoint traps.
std::vector<std::string> readPiecesThroughLLDB(lldb::SBProcess &process,
                                               const std::vector<AddressRange> &pieces);

// Reads pieces (sorted by start) of a process's memory without LLDB, so on any
// thread while LLDB works on another: the bytes of each piece read whole, an
// empty string for one that could not be. LLDB's breakpoint traps are still in
// them: pieces under one are read again through LLDB (ProcessSide::readPieces,
// FunctionEntries).
using DirectRead = std::function<std::vector<std::string>(const std::vector<AddressRange> &)>;

class ProcessSide {
public:
  virtual ~ProcessSide() = default;
  // "local", "remote", "core file", "portable (SB API only)": for --status.
  virtual std::string kind() const = 0;

  // The process now: its PID and what tells a relaunch with the same PID
  // apart; nothing when it has ended (killed while LLDB held it stopped).
  // Without /proc's start time, LLDB's own id of the process does that.
  virtual std::optional<ProcessIdentity> identify(lldb::SBProcess &process) {
    return ProcessIdentity{process.GetProcessID(), process.GetUniqueID()};
  }
  // Whether the process of `identity` ended since: asked between chunks of work.
  virtual bool hasEnded(const ProcessIdentity &) const { return false; }
  virtual std::vector<Mapping> memoryMap(lldb::SBProcess &process) = 0;

  // The perf map and the jitdump when none is named; `otherNamed`: the other
  // source was named (a core then looks for nothing more).
  virtual FoundPerfMap findPerfMap(uint64_t pid, bool otherNamed) = 0;
  virtual std::optional<std::string> findJitdump(uint64_t pid,
                                                 const std::vector<Mapping> &mappings,
                                                 bool otherNamed) = 0;
  // `path` opened for the readers; `force` trusts any owner; `text`: a perf
  // map (a jitdump is binary); `directory`: this process's private directory.
  virtual FollowedFile follow(const std::string &path, bool text, bool force,
                              const std::string &directory) = 0;
  // What the "no perf map or jitdump" note says was looked at.
  virtual std::string whereLooked(uint64_t pid) const;

  // Where the runtime's source files are read to check its line numbers
  // (SourceFiles.h): a prefix for their paths, or nothing when not checked.
  virtual std::optional<std::string> sourceRoot(uint64_t) const { return std::nullopt; }
  // The bytes of the jitdump `path` still in the process's stdio buffer, after
  // the file's end (provisional: JitdumpReader.h).
  virtual std::string unflushedBytes(lldb::SBTarget &, lldb::SBProcess &, const std::string &) {
    return {};
  }
  // At an exec stop: the perf map `path` as the old program left it (a runtime
  // that appends keeps its lines in front of the new ones).
  virtual std::optional<EarlierMap> mapBeforeExec(const std::string &) const {
    return std::nullopt;
  }
  // At a write the compile watch stopped (thread at the call): which file it
  // goes to, the perf map `mapPath` or the jitdump (`dumpPath`, or before one
  // is followed a file named as the process's jitdump), and the bytes that
  // will then follow the file's end; nothing when it goes elsewhere. Only a
  // side that sees descriptors can say.
  virtual std::optional<PendingWrite> pendingWrite(lldb::SBProcess &, lldb::SBThread &,
                                                   const std::optional<std::string> &,
                                                   const std::optional<std::string> &) {
    return std::nullopt;
  }
  virtual bool seesDescriptors() const { return false; }

  // The bytes of each of `pieces` (sorted by start), fewer where memory is not
  // readable, with LLDB's breakpoint traps taken out: the side's direct read
  // where it has one, the SB API (one request per run of close pieces) for the
  // rest and for the pieces under a trap.
  std::vector<std::string> readPieces(lldb::SBProcess &process,
                                      const std::vector<AddressRange> &pieces);
  // The side's reader of memory without LLDB (DirectRead), if it has one: a
  // local process is read with process_vm_readv, 1024 runs of close pieces a
  // call (the entries of 100k functions spread over 256 MiB: 1.9 s through the
  // SB API, 60 ms so).
  virtual DirectRead directRead(lldb::SBProcess &) { return {}; }

  // The side's own checks of a sync: warnings added to `diagnostics`, or an
  // error when the sources do not belong to the process (then not followed).
  virtual llvm::Error checkSync(const SyncFacts &, std::vector<Diagnostic> &) {
    return llvm::Error::success();
  }
  // Problems met on the way (reading a core file), said by the next sync.
  virtual std::vector<Diagnostic> takeDiagnostics() { return {}; }
};

// The side for `target`'s process. `portable`: the SB-API-only side for a
// process of this machine too.
std::unique_ptr<ProcessSide> chooseProcessSide(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                               bool portable);

// The four sides (in LocalProcess.cpp, RemoteProcess.cpp, CoreProcess.cpp,
// PortableProcess.cpp).
std::unique_ptr<ProcessSide> makeLocalProcess(lldb::SBTarget &target);
std::unique_ptr<ProcessSide> makeRemoteProcess(lldb::SBDebugger &debugger, lldb::SBTarget &target);
std::unique_ptr<ProcessSide> makeCoreProcess(lldb::SBTarget &target);
// `emulated`: the process runs under qemu-user, whose gdbstub calls every
// process 1; its PID (the one it names its perf map and jitdump after) is
// the host's PID of the qemu process, which is its main thread's id.
std::unique_ptr<ProcessSide> makePortableProcess(lldb::SBTarget &target, bool emulated = false);

// LLDB's own memory map of a process (remote targets, minidumps, portable).
std::vector<Mapping> memoryMapFromLLDB(lldb::SBProcess &process);


} // namespace jitsym::plugin
