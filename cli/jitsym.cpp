// jitsym: the command-line face of the core library (convert, lookup,
// symbolicate). It is also the seam that tests use to check the core without LLDB.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "JitdumpDump.h"
#include "llvm/Config/llvm-config.h"
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/files/PrivateDir.h"
#include "jitsym/files/ProcessFiles.h"
#include "jitsym/objects/RegionExport.h"
#include "jitsym/symbols/JitdumpEntries.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/files/Snapshot.h"
#include "jitsym/objects/SymbolFileWriter.h"
#include "jitsym/files/SymbolSource.h"
#include "jitsym/symbols/Symbolizer.h"
#include "jitsym/plan/Uuid.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

using namespace jitsym;
namespace cl = llvm::cl;

static cl::OptionCategory Category("jitsym options");

static cl::SubCommand ConvertCmd("convert", "Write an LLDB JSON symbol file (type \"jit\") for a perf map or jitdump");
static cl::opt<std::string> ConvertInput(cl::Positional, cl::desc("<perf map or jitdump>"), cl::Required, cl::sub(ConvertCmd), cl::cat(Category));
static cl::opt<std::string> ConvertOutput("o", cl::desc("Output JSON file (written atomically)"), cl::value_desc("OUT.json"), cl::Required, cl::sub(ConvertCmd), cl::cat(Category));
static cl::opt<std::string> ConvertTriple("triple", cl::desc("Target triple (default: a jitdump's architecture, else this host's)"), cl::sub(ConvertCmd), cl::cat(Category));
static cl::opt<std::string> ConvertUuid("uuid", cl::desc("UUID to write (default: derived from the input's contents)"), cl::sub(ConvertCmd), cl::cat(Category));

static cl::SubCommand LookupCmd("lookup", "Print NAME+0xOFF for each address, and FILE:LINE where a jitdump gives it (?? when no symbol covers it)");
static cl::opt<std::string> LookupInput(cl::Positional, cl::desc("<perf map or jitdump>"), cl::Required, cl::sub(LookupCmd), cl::cat(Category));
static cl::list<std::string> LookupAddresses(cl::Positional, cl::desc("<address>..."), cl::OneOrMore, cl::sub(LookupCmd), cl::cat(Category));

static cl::SubCommand SymbolicateCmd("symbolicate", "Copy text (a crash log, a backtrace) adding NAME+0xOFF after each resolvable address");
static cl::opt<std::string> SymbolicateInput(cl::Positional, cl::desc("<perf map or jitdump>"), cl::Required, cl::sub(SymbolicateCmd), cl::cat(Category));
static cl::opt<std::string> SymbolicateText(cl::Positional, cl::desc("[text file, default: standard input]"), cl::init("-"), cl::sub(SymbolicateCmd), cl::cat(Category));

static cl::SubCommand ExportCmd("export", "Write the JIT symbols as files another LLDB session loads: per region an object, a JSON symbol file and DWARF lines, plus load.lldb and regions.json");
static cl::list<std::string> ExportInputs(cl::Positional, cl::desc("<perf map, jitdump or snapshot directory>..."), cl::OneOrMore, cl::sub(ExportCmd), cl::cat(Category));
static cl::opt<std::string> ExportOutput("o", cl::desc("Directory to write (created if missing)"), cl::value_desc("DIR"), cl::Required, cl::sub(ExportCmd), cl::cat(Category));
static cl::opt<std::string> ExportMaps("maps", cl::desc("The process's memory map (/proc/PID/maps text): regions follow its anonymous memory, its files are listed for tools"), cl::value_desc("FILE"), cl::sub(ExportCmd), cl::cat(Category));
static cl::opt<std::string> ExportTriple("triple", cl::desc("Target triple (default: a jitdump's architecture, else this host's)"), cl::sub(ExportCmd), cl::cat(Category));

static cl::SubCommand SnapshotCmd("snapshot", "Save what a post-mortem of process PID needs (perf map, jitdump, memory map, identity) into DIR; also from a core_pattern pipe helper");
static cl::opt<uint64_t> SnapshotPid(cl::Positional, cl::desc("<pid>"), cl::Required, cl::sub(SnapshotCmd), cl::cat(Category));
static cl::opt<std::string> SnapshotDir(cl::Positional, cl::desc("<directory>"), cl::Required, cl::sub(SnapshotCmd), cl::cat(Category));
static cl::opt<bool> SnapshotForce("force", cl::desc("Copy files not owned by the process's user or root"), cl::sub(SnapshotCmd), cl::cat(Category));

static cl::SubCommand DumpCmd("dump", "Print the records of a jitdump file in a stable text form (line tables and decoded unwind tables indented under their record)");
static cl::opt<std::string> DumpInput(cl::Positional, cl::desc("<jitdump>"), cl::Required, cl::sub(DumpCmd), cl::cat(Category));

static void reportDiagnostics(const std::string &path, const LoadedSymbols &loaded) {
  const bool jitdump = loaded.format == SourceFormat::Jitdump;
  for (const Diagnostic &d : loaded.diagnostics)
    llvm::errs() << "warning: " << d.str() << (jitdump ? "" : " (line skipped)") << "\n";
  if (loaded.pendingBytes)
    llvm::errs() << "warning: " << path << ": ignoring "
                 << (jitdump ? "an incomplete last record (" : "an unterminated last line (")
                 << loaded.pendingBytes << " bytes): the writer may not have finished it\n";
}

static bool isRfc4122Text(llvm::StringRef text) {
  if (text.size() != 36)
    return false;
  for (size_t i = 0; i < text.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !llvm::isHexDigit(text[i]))
      return false;
  }
  return true;
}

static bool load(const std::vector<std::string> &paths, LoadedSymbols &out,
                 LoadOptions options = {}) {
  llvm::Expected<LoadedSymbols> loaded = loadSymbols(paths, options);
  if (!loaded) {
    llvm::errs() << "error: " << llvm::toString(loaded.takeError()) << "\n";
    return false;
  }
  out = std::move(*loaded);
  reportDiagnostics(paths.back(), out);
  return true;
}

static bool load(const std::string &path, LoadedSymbols &out) {
  return load(std::vector<std::string>{path}, out);
}

static std::string defaultTriple(const LoadedSymbols &loaded, const std::string &given) {
  return !given.empty()                   ? given
         : !loaded.architecture.empty() ? loaded.architecture + "-unknown-linux-gnu"
                                        : llvm::sys::getProcessTriple();
}

static bool checkTriple(const std::string &triple) {
  if (triple.empty() || llvm::Triple(triple).getArch() != llvm::Triple::UnknownArch)
    return true;
  llvm::errs() << "error: --triple '" << triple
               << "' names no architecture LLVM knows (example: x86_64-pc-linux-gnu)\n";
  return false;
}

static int runConvert() {
  if (!checkTriple(ConvertTriple))
    return 1;
  if (!ConvertUuid.empty() && !isRfc4122Text(ConvertUuid)) {
    llvm::errs() << "error: --uuid '" << ConvertUuid
                 << "' is not RFC 4122 text (8-4-4-4-12 hexadecimal digits)\n";
    return 1;
  }
  LoadedSymbols loaded;
  if (!load(ConvertInput, loaded))
    return 1;
  if (loaded.tables.symbols.size() == 0) {
    llvm::errs() << "error: " << ConvertInput << ": no symbols found\n";
    return 1;
  }
  // Offline there is no memory map: the planner gives each window's symbols a
  // section over the pages they span, as for an export.
  RegionPlanner planner(loaded.tables.symbols, JitAddressSpace::unrestricted());
  const std::vector<PlannedRegion> regions = planner.plan();
  SymbolFileSpec spec;
  spec.triple = defaultTriple(loaded, ConvertTriple);
  std::vector<const Symbol *> symbols;
  for (const PlannedRegion &region : regions)
    symbols.insert(symbols.end(), region.symbols.begin(), region.symbols.end());
  spec.uuid = ConvertUuid.empty()
                  ? uuidToString(planUuid(loaded.tables.symbols, regions, "jitsym-convert"))
                  : std::string(ConvertUuid);
  spec.sections = sectionsOf(regions);
  std::string json = renderSymbolFile(spec, loaded.tables.symbols, symbols, [&](const Symbol &symbol) {
    return planner.isData(symbol);
  });
  if (ConvertOutput == "-") {
    llvm::outs() << json;
  } else if (llvm::Error err = writeFileAtomically(ConvertOutput, json)) {
    llvm::errs() << "error: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  llvm::errs() << "wrote " << ConvertOutput << ": " << symbols.size() << " symbols, "
               << spec.sections.size() << " sections, uuid " << spec.uuid << "\n";
#if LLVM_VERSION_MAJOR < 21
  // LLDB before 21 puts every section of a JSON object file at address 0, so
  // the file opened as a target resolves no address (fixed upstream in 21).
  llvm::errs() << "note: LLDB " << LLVM_VERSION_MAJOR
               << " ignores the section addresses of a JSON object file (LLDB 21 reads "
                  "them): opened as a target, this file names no address there; 'jitsym "
                  "export' writes files that LLDB "
               << LLVM_VERSION_MAJOR << " loads ('command source DIR/load.lldb')\n";
#endif
  return 0;
}

static int runLookup() {
  LoadedSymbols loaded;
  if (!load(LookupInput, loaded))
    return 1;
  int status = 0;
  for (const std::string &text : LookupAddresses) {
    std::optional<uint64_t> address = parseAddress(text);
    if (!address) {
      llvm::errs() << "error: '" << text << "' is not a hexadecimal address\n";
      status = 1;
      continue;
    }
    std::optional<std::string> described = describeAddress(loaded.tables.symbols, *address, &loaded.tables.lines);
    llvm::outs() << llvm::format("0x%016llx ", static_cast<unsigned long long>(*address))
                 << (described ? *described : std::string("??")) << "\n";
  }
  return status;
}

static int runSymbolicate() {
  LoadedSymbols loaded;
  if (!load(SymbolicateInput, loaded))
    return 1;
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(SymbolicateText, /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << "error: " << SymbolicateText << ": " << buffer.getError().message() << "\n";
    return 1;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  llvm::outs() << symbolicateText(loaded.tables.symbols, std::string_view(text.data(), text.size()),
                                  &loaded.tables.lines);
  return 0;
}

// A snapshot directory stands for the files saved in it.
static bool expandSources(std::vector<std::string> &sources, std::string &maps) {
  std::vector<std::string> files;
  for (const std::string &input : ExportInputs) {
    if (!llvm::sys::fs::is_directory(input)) {
      files.push_back(input);
      continue;
    }
    llvm::Expected<Snapshot> snapshot = readSnapshot(input);
    if (!snapshot) {
      llvm::errs() << "error: " << llvm::toString(snapshot.takeError()) << "\n";
      return false;
    }
    for (const std::string *file : {&snapshot->perfMap, &snapshot->jitdump})
      if (!file->empty())
        files.push_back(*file);
    if (maps.empty())
      maps = snapshot->maps;
  }
  if (files.empty()) {
    llvm::errs() << "error: no perf map or jitdump to export (the snapshot has neither)\n";
    return false;
  }
  sources = std::move(files);
  return true;
}

static int runExport() {
  if (!checkTriple(ExportTriple))
    return 1;
  std::vector<std::string> sources;
  std::string maps = ExportMaps;
  if (!expandSources(sources, maps))
    return 1;
  LoadOptions options;
  options.unwindTables = true;
  LoadedSymbols loaded;
  if (!load(sources, loaded, options))
    return 1;
  ExportRequest request;
  request.tables = &loaded.tables;
  request.triple = defaultTriple(loaded, ExportTriple);
  request.origin = llvm::join(sources, " + ");
  // A jitdump's code bytes say which functions keep a frame pointer.
  std::vector<JitdumpEntries> dumps;
  for (const std::string &source : sources)
    if (std::optional<std::string> bytes = readFile(source))
      if (JitdumpEntries entries = JitdumpEntries::read(*bytes); entries.size() > 0)
        dumps.push_back(std::move(entries));
  if (!dumps.empty())
    request.entries = [&dumps](uint64_t start, uint64_t) {
      for (auto it = dumps.rbegin(); it != dumps.rend(); ++it) // the later source wins
        if (EntryRule said = it->at(start); said.framePointer != FramePointer::Unknown)
          return said;
      return EntryRule{};
    };
  if (!maps.empty()) {
    std::optional<std::string> text = readFile(maps);
    if (!text) {
      llvm::errs() << "error: " << maps << ": cannot be read\n";
      return 1;
    }
    std::vector<Diagnostic> diagnostics;
    request.mappings = parseMemoryMap(*text, maps, &diagnostics);
    for (const Diagnostic &d : diagnostics)
      llvm::errs() << "warning: " << d.str() << " (line skipped)\n";
    request.space = JitAddressSpace::fromMemoryMap(request.mappings);
  }
  llvm::Expected<ExportResult> result = exportRegions(ExportOutput, request);
  if (!result) {
    llvm::errs() << "error: " << llvm::toString(result.takeError()) << "\n";
    return 1;
  }
  if (result->symbols == 0) {
    llvm::errs() << "error: " << request.origin << ": none of its " << loaded.tables.symbols.size()
                 << " symbols lies in anonymous memory of " << maps
                 << ": the files are not from the same process\n";
    return 1;
  }
  llvm::errs() << "wrote " << ExportOutput << ": " << result->symbols << " symbols in "
               << result->regions.size() << (result->regions.size() == 1 ? " region" : " regions");
  if (result->outside)
    llvm::errs() << " (" << result->outside << " outside the process's anonymous memory, left out)";
  llvm::errs() << "; load them with: command source " << ExportOutput << "/load.lldb\n";
  return 0;
}

static int runSnapshot() {
  SnapshotOptions options;
  options.force = SnapshotForce;
  llvm::Expected<Snapshot> snapshot = takeSnapshot(SnapshotPid, SnapshotDir, options);
  if (!snapshot) {
    llvm::errs() << "error: " << llvm::toString(snapshot.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << "saved process " << snapshot->pid << " (" << snapshot->executable << ") in "
               << SnapshotDir << ": memory map";
  if (!snapshot->perfMap.empty())
    llvm::outs() << ", " << snapshot->perfMapSource;
  if (!snapshot->jitdump.empty())
    llvm::outs() << ", " << snapshot->jitdumpSource;
  if (snapshot->perfMap.empty() && snapshot->jitdump.empty())
    llvm::outs() << " (no perf map or jitdump found)";
  llvm::outs() << "\n";
  return 0;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(Category);
  // --version: jitsym's, and the LLDB its plugin is built for (LLVM's own
  // printer would name only LLVM's).
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "jitsym " << JITSYM_VERSION << " (built for LLDB " << LLVM_VERSION_STRING
       << ": lib/libjitsym-lldb-" << LLVM_VERSION_MAJOR << ".so)\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "jitsym: symbols for JIT-compiled code, from perf maps to LLDB\n\n"
      "  jitsym convert MAP -o OUT.json [--triple T] [--uuid U]\n"
      "  jitsym lookup MAP ADDR...\n"
      "  jitsym symbolicate MAP [FILE]\n"
      "  jitsym dump JITDUMP\n"
      "  jitsym export SOURCE... -o DIR [--maps FILE] [--triple T]\n"
      "  jitsym snapshot PID DIR [--force]\n\n"
      "MAP is a perf map (perf-PID.map) or a jitdump (jit-PID.dump), told apart by\n"
      "its content. A SOURCE is a MAP or a snapshot directory.\n\n"
      "Run 'jitsym SUBCOMMAND --help' for the options of each.\n");
  if (ConvertCmd)
    return runConvert();
  if (LookupCmd)
    return runLookup();
  if (SymbolicateCmd)
    return runSymbolicate();
  if (ExportCmd)
    return runExport();
  if (SnapshotCmd)
    return runSnapshot();
  if (DumpCmd)
    return runJitdumpDump(DumpInput, llvm::outs(), llvm::errs());
  llvm::errs() << "error: missing subcommand; run 'jitsym --help'\n";
  return 2;
}
