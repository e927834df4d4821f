// jitsym: the command-line face of the core library (convert, lookup,
// symbolicate). It is also the seam that tests use to check the core without LLDB.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "JitdumpDump.h"
#include "jitsym/PrivateDir.h"
#include "jitsym/SymbolFileWriter.h"
#include "jitsym/SymbolSource.h"
#include "jitsym/Symbolizer.h"
#include "jitsym/Uuid.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
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

static bool load(const std::string &path, LoadedSymbols &out) {
  llvm::Expected<LoadedSymbols> loaded = loadSymbols(path);
  if (!loaded) {
    llvm::errs() << "error: " << llvm::toString(loaded.takeError()) << "\n";
    return false;
  }
  out = std::move(*loaded);
  reportDiagnostics(path, out);
  return true;
}

// Offline there is no memory map: sections are clusters of nearby symbols,
// page-aligned, so that LLDB resolves every symbol and nothing far from them.
static std::vector<SectionSpec> clusterSections(const SymbolTable &table) {
  constexpr uint64_t kPage = 4096, kMaxGap = 64 * 1024;
  std::vector<SectionSpec> sections;
  uint64_t start = 0, end = 0;
  bool open = false;
  auto close = [&] {
    SectionSpec s;
    s.name = ".jit" + std::to_string(sections.size());
    s.address = start & ~(kPage - 1);
    uint64_t alignedEnd = (end + kPage - 1) & ~(kPage - 1);
    s.size = (alignedEnd > s.address ? alignedEnd : end) - s.address;
    sections.push_back(s);
  };
  table.forEach([&](const Symbol &symbol) {
    if (open && symbol.address <= end + kMaxGap) {
      end = std::max(end, symbol.end());
      return;
    }
    if (open)
      close();
    start = symbol.address;
    end = symbol.end();
    open = true;
  });
  if (open)
    close();
  return sections;
}

static int runConvert() {
  if (!ConvertTriple.empty() &&
      llvm::Triple(ConvertTriple).getArch() == llvm::Triple::UnknownArch) {
    llvm::errs() << "error: --triple '" << ConvertTriple
                 << "' names no architecture LLVM knows (example: x86_64-pc-linux-gnu)\n";
    return 1;
  }
  if (!ConvertUuid.empty() && !isRfc4122Text(ConvertUuid)) {
    llvm::errs() << "error: --uuid '" << ConvertUuid
                 << "' is not RFC 4122 text (8-4-4-4-12 hexadecimal digits)\n";
    return 1;
  }
  LoadedSymbols loaded;
  if (!load(ConvertInput, loaded))
    return 1;
  if (loaded.table.size() == 0) {
    llvm::errs() << "error: " << ConvertInput << ": no symbols found\n";
    return 1;
  }
  SymbolFileSpec spec;
  spec.triple = !ConvertTriple.empty()          ? std::string(ConvertTriple)
                : !loaded.architecture.empty() ? loaded.architecture + "-unknown-linux-gnu"
                                               : llvm::sys::getProcessTriple();
  std::vector<const Symbol *> symbols;
  uint64_t digest = 1469598103934665603ull; // FNV-1a over addresses and names
  loaded.table.forEach([&](const Symbol &s) {
    symbols.push_back(&s);
    for (char c : loaded.table.name(s))
      digest = (digest ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    digest = (digest ^ s.address) * 1099511628211ull;
  });
  spec.uuid = ConvertUuid.empty()
                  ? uuidToString(uuidFromName("jitsym-convert:" + std::to_string(digest)))
                  : std::string(ConvertUuid);
  spec.sections = clusterSections(loaded.table);
  std::string json = renderSymbolFile(spec, loaded.table, symbols);
  if (ConvertOutput == "-") {
    llvm::outs() << json;
  } else if (llvm::Error err = writeFileAtomically(ConvertOutput, json)) {
    llvm::errs() << "error: " << llvm::toString(std::move(err)) << "\n";
    return 1;
  }
  llvm::errs() << "wrote " << ConvertOutput << ": " << symbols.size() << " symbols, "
               << spec.sections.size() << " sections, uuid " << spec.uuid << "\n";
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
    std::optional<std::string> described = describeAddress(loaded.table, *address, &loaded.lines);
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
  llvm::outs() << symbolicateText(loaded.table, std::string_view(text.data(), text.size()),
                                  &loaded.lines);
  return 0;
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "jitsym: symbols for JIT-compiled code, from perf maps to LLDB\n\n"
      "  jitsym convert MAP -o OUT.json [--triple T] [--uuid U]\n"
      "  jitsym lookup MAP ADDR...\n"
      "  jitsym symbolicate MAP [FILE]\n"
      "  jitsym dump JITDUMP\n\n"
      "MAP is a perf map (perf-PID.map) or a jitdump (jit-PID.dump), told apart by\n"
      "its content.\n\n"
      "Run 'jitsym SUBCOMMAND --help' for the options of each.\n");
  if (ConvertCmd)
    return runConvert();
  if (LookupCmd)
    return runLookup();
  if (SymbolicateCmd)
    return runSymbolicate();
  if (DumpCmd)
    return runJitdumpDump(DumpInput, llvm::outs(), llvm::errs());
  llvm::errs() << "error: missing subcommand; run 'jitsym --help'\n";
  return 2;
}
