// The JIT symbols of a process as files that another LLDB session loads later:
// for a core file opened tomorrow, a crash log, or LLDB's crash-log tooling.
//
// Per region (see RegionPlanner.h) a directory wSTART/ holds the same
// three files jit-sync gives LLDB live: `jit`, an ELF whose build-id is the
// window's UUID and whose .text is the window (with the frame-pointer
// .eh_frame for the code that keeps a frame pointer, UnwindObject.h); `jit.json`, a JSON symbol file with that UUID,
// the section and every function of the window; and `jit.debug`, the DWARF of
// their source lines and unwind tables (DebugObject.h), when any has them.
// `load.lldb` gives them to a session (`command source DIR/load.lldb`), and
// `regions.json` lists them with the process's file-backed mappings, for
// tools (jit-symbolicate) that build a target of their own.
#pragma once

#include <string>
#include <vector>

#include "jitsym/objects/DebugObject.h"
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/symbols/JitTables.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct ExportedRegion {
  AddressRange section;
  std::string uuid;    // RFC 4122 text: the object's build-id and the JSON's uuid
  std::string object;  // paths, all below the export directory
  std::string symbols;
  std::string debug;   // empty when no function of the window has lines or unwind tables
  uint64_t symbolCount = 0;
  // The files `target symbols add` takes, in order: the JSON, then the DWARF.
  std::vector<std::string> symbolFiles() const {
    return debug.empty() ? std::vector<std::string>{symbols}
                         : std::vector<std::string>{symbols, debug};
  }
};

struct ExportRequest {
  const JitTables *tables = nullptr;
  // Where JIT code may lie: sections are clipped to it, and symbols outside it
  // (file-backed or unmapped memory) are left out. Unrestricted offline.
  JitAddressSpace space = JitAddressSpace::unrestricted();
  std::string triple;
  // The process's memory map, if known: its file-backed mappings go into
  // regions.json so that tools can load the real modules too.
  std::vector<Mapping> mappings;
  // Ranges another module of the debugger names (jit-sync): left out.
  std::vector<AddressRange> claimed;
  LinePlausible plausible = nullptr;
  // What each function's entry says of its frame pointer (the process's
  // memory); none: every region's code gets the frame-pointer rule.
  EntryProbe entries;
  std::string origin; // what the symbols were read from, for load.lldb's comment
};

struct ExportResult {
  std::vector<ExportedRegion> regions;
  uint64_t symbols = 0;  // exported
  uint64_t outside = 0;  // left out: outside JIT memory, or not kept
};

// Writes the files into `directory` (created if missing; files replaced
// atomically). UUIDs derive from each window's contents, so exporting the same
// symbols twice gives the same files.
llvm::Expected<ExportResult> exportRegions(const std::string &directory,
                                           const ExportRequest &request);

} // namespace jitsym
