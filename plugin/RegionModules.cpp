// Module lifecycle for JIT regions, through LLDB's public SB API only.
#include "RegionModules.h"

#include <unistd.h>

#include <algorithm>
#include <optional>

#include "PendingBreakpoints.h"
#include "jitsym/objects/LldbCommand.h"
#include "jitsym/objects/LldbSymbols.h"
#include "jitsym/files/PrivateDir.h"
#include "jitsym/objects/SymbolFileWriter.h"
#include "jitsym/objects/UnwindObject.h"

namespace jitsym::plugin {
namespace {

llvm::Error lldbError(const std::string &what) {
  return llvm::createStringError(std::errc::io_error, "%s", what.c_str());
}

} // namespace

const RegionModule *RegionModules::find(uint64_t key) const {
  auto it = regions_.find(key);
  return it == regions_.end() ? nullptr : &it->second;
}

HeldRegions RegionModules::held() const {
  HeldRegions held;
  for (const auto &[key, region] : regions_)
    held.emplace(key, HeldRegion{region.section, region.dataSymbols, &region.framePointerCode});
  return held;
}

bool RegionModules::holdData() const {
  return std::any_of(regions_.begin(), regions_.end(),
                     [](const auto &entry) { return entry.second.dataSymbols > 0; });
}

bool RegionModules::owns(const lldb::SBModule &module) const {
  lldb::SBFileSpec file = module.GetFileSpec();
  const char *directory = file.GetDirectory();
  const std::string prefix = directory_ + "/"; // not another process's pid12-34 beside pid12-3
  return directory && std::string_view(directory).substr(0, prefix.size()) == prefix;
}

uint64_t RegionModules::symbolCount() const {
  uint64_t total = 0;
  for (const auto &entry : regions_)
    total += entry.second.symbols;
  return total;
}

void RegionModules::discard(lldb::SBTarget &target, RegionModule &region) {
  if (region.module.IsValid()) {
    target.ClearModuleLoadAddress(region.module);
    target.RemoveModule(region.module);
  }
  for (const std::string &file : region.files)
    ::unlink(file.c_str());
  for (const std::string *directory : {&region.directory, &region.objectDirectory})
    if (!directory->empty())
      ::rmdir(directory->c_str()); // the object's stays while a newer module's object is in it
  region.files.clear();
  region.module = lldb::SBModule();
}

llvm::Error RegionModules::addSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                         const std::string &path) {
  llvm::Expected<std::string> command = lldbCommandWithPath("target symbols add", path);
  if (!command)
    return command.takeError();
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  debugger.GetCommandInterpreter().HandleCommand(command->c_str(), context, result, false);
  if (!result.Succeeded())
    return lldbError(path + ": LLDB refused it: " +
                     std::string(result.GetError() ? result.GetError() : "unknown error"));
  return llvm::Error::success();
}

llvm::Error RegionModules::attachSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                            RegionModule &region, const std::string &path,
                                            const SymbolTable &table,
                                            const std::vector<const Symbol *> &symbols,
                                            SymbolPredicate isData) {
  SymbolFileSpec spec;
  spec.triple = code_.triple;
  spec.uuid = uuidToString(region.uuid);
  if (llvm::Error err = writeFileAtomically(path, renderSymbolFile(spec, table, symbols, isData)))
    return err;
  region.files.push_back(path);
  if (llvm::Error err = addSymbolFile(debugger, target, path))
    return err;
  // LLDB merges a symbol file into the module's table lazily; a second add before
  // anything reads the table would drop the first file's symbols. Read it now.
  region.module.GetNumSymbols();
  region.symbols += symbols.size();
  for (const Symbol *symbol : symbols)
    region.dataSymbols += isData(*symbol);
  return llvm::Error::success();
}

llvm::Expected<StagedModule> RegionModules::stage(lldb::SBTarget &target,
                                                 const SymbolTable &table,
                                                 const PlannedRegion &planned,
                                                 SymbolPredicate isData,
                                                 const EntryProbe &entries,
                                                 const std::optional<RuntimeFrame> &runtimeFrame,
                                                 std::vector<ElfSection> debugSections,
                                                 ModuleReader &reader) {
  const uint64_t key = planned.section.start;
  StagedModule staged;
  // The module at `key` now, if any, goes as the new one comes (finish).
  std::optional<RegionModule> &previous = staged.previous;
  if (auto it = regions_.find(key); it != regions_.end()) {
    previous = std::move(it->second);
    regions_.erase(it);
  }
  auto dropPrevious = [&] {
    if (previous)
      discard(target, *previous);
    previous.reset();
  };
  if (planned.symbols.empty()) {
    dropPrevious();
    return staged;
  }

  RegionModule &region = staged.region;
  region.section = planned.section;
  // A generation is used up once LLDB has seen its module (its UUID may stay
  // in LLDB's module cache); a try that failed before that is made again
  // with the same one.
  auto last = generations_.find(key);
  region.generation = last == generations_.end() ? 0 : last->second + 1;
  region.uuid = regionUuid(table, planned,
                           identity_ + "/g" + std::to_string(region.generation));
  // The object keeps one path for the key, its later files go by generation.
  llvm::Expected<std::string> objectDirectory =
      privateSubdirectory(directory_, RegionFiles::directory(planned.section));
  llvm::Expected<std::string> directory =
      privateSubdirectory(directory_, RegionFiles::directory(planned.section, region.generation));
  if (!objectDirectory || !directory) {
    dropPrevious();
    llvm::Error err = llvm::joinErrors(objectDirectory.takeError(), directory.takeError());
    return err;
  }
  region.directory = *directory;
  region.objectDirectory = *objectDirectory;
  const std::string objectPath = region.objectDirectory + "/" + RegionFiles::kObject;
  // The symbols (and lines) go in the object: LLDB resolves breakpoints in a
  // module from them as it adds it, and reads them far faster than JSON.
  std::vector<LldbSymbol> symbols = lldbSymbolsOf(table, planned.symbols, isData);
  region.framePointerCode =
      framePointerCodeOf(planned.section, planned.symbols, isData, entries, runtimeFrame);
  const bool ownLines = !debugSections.empty();
  // Its traps go first, where a breakpoint has a location in it; without
  // one, unloading it apart only costs time (V8 reuses freed code's
  // addresses, so a busy Node remakes modules at most stops).
  if (previous && previous->module.IsValid()) {
    if (previous->section.containsAny(breakpointLocationAddresses(target))) {
      target.ClearModuleLoadAddress(previous->module);
      staged.previousUnloaded = true;
    }
  }
  if (llvm::Error err = writeFileAtomically(
          objectPath, buildUnwindObject(*code_.arch, planned.section, region.uuid, std::move(symbols),
                                        std::move(debugSections), region.framePointerCode))) {
    dropPrevious();
    return err;
  }
  region.files.push_back(objectPath);
  if (previous) // the path is the new module's now
    previous->files.erase(std::remove(previous->files.begin(), previous->files.end(), objectPath),
                          previous->files.end());

  // Added by spec, not as an SBModule: LLDB 22's AddModule(SBModule&) holds
  // the target's module-list lock while it tells the process about the new
  // module (which takes the language-runtime lock), and LLDB's event thread,
  // unwinding a stop, takes the two in the other order: a deadlock (DESIGN,
  // "One module per region"). AddModule(SBModuleSpec&) appends through
  // Target::GetOrCreateModule, which lets the list's lock go first.
  // With the UUID and the path of the module it follows, LLDB replaces that
  // module (Breakpoint::ModuleReplaced): a breakpoint's locations there move
  // to the new module's code, or leave the list when it has none for them.
  lldb::SBModuleSpec &moduleSpec = staged.spec;
  moduleSpec.SetFileSpec(lldb::SBFileSpec(objectPath.c_str(), false));
  moduleSpec.SetUUIDBytes(region.uuid.data(), region.uuid.size());
  // A module whose object is its own symbol file reads the object's symbol
  // table again when the first delta's `target symbols add` replaces it (30
  // ms for a region of 54k symbols): an empty JSON symbol file is its symbol
  // file from the start instead. Not with DWARF in the object: the JSON file
  // would hide it.
  if (!ownLines) {
    const std::string emptyPath = region.directory + "/" + RegionFiles::symbols();
    SymbolFileSpec empty;
    empty.triple = code_.triple;
    empty.uuid = uuidToString(region.uuid);
    if (llvm::Error err = writeFileAtomically(emptyPath, renderSymbolFile(empty, table, {}))) {
      dropPrevious();
      discard(target, region);
      return err;
    }
    region.files.push_back(emptyPath);
    moduleSpec.SetSymbolFileSpec(lldb::SBFileSpec(emptyPath.c_str(), false));
  }
  region.symbols = planned.symbols.size();
  for (const Symbol *symbol : planned.symbols)
    region.dataSymbols += isData(*symbol);
  // LLDB has seen this generation once it reads the module.
  generations_[key] = region.generation;
  staged.reading = reader.read(moduleSpec);
  return staged;
}

llvm::Error RegionModules::finish(lldb::SBTarget &target, StagedModule staged,
                                  ModuleReader &reader) {
  if (!staged.reading) { // the region has no symbols: no module
    if (staged.previous)
      discard(target, *staged.previous);
    return llvm::Error::success();
  }
  RegionModule &region = staged.region;
  const uint64_t key = region.section.start;
  const std::string objectPath = region.objectDirectory + "/" + RegionFiles::kObject;
  // Held until LLDB has it in the target: AddModule finds it in LLDB's
  // module cache, read already.
  const lldb::SBModule read = reader.take(*staged.reading);
  // A module with no breakpoint location in it goes before its successor
  // comes: removing a module unloads it without the flush of every thread's
  // state that ClearModuleLoadAddress costs (a register read per thread from
  // the debug server: ~0.1 ms a module for Node's 7 threads, more for a
  // JVM's), and loading the new one below flushes it once. One with
  // locations was unloaded (stage) and is replaced, so that they move.
  if (staged.previous && !staged.previousUnloaded && staged.previous->module.IsValid())
    target.RemoveModule(staged.previous->module);
  region.module = target.AddModule(staged.spec);
  if (staged.previous) // out of the target already: only its other files go
    discard(target, *staged.previous);
  if (!region.module.IsValid()) {
    discard(target, region);
    return lldbError(objectPath + ": LLDB could not add the module");
  }
  lldb::SBError loadError = target.SetModuleLoadAddress(region.module, uint64_t(0));
  if (loadError.Fail()) {
    discard(target, region);
    return lldbError(objectPath + ": LLDB could not load it: " + loadError.GetCString());
  }
  regions_.emplace(key, std::move(region));
  return llvm::Error::success();
}

void RegionModules::abandon(lldb::SBTarget &target, StagedModule staged) {
  if (staged.previous)
    discard(target, *staged.previous);
  discard(target, staged.region);
}

llvm::Error RegionModules::append(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                  uint64_t key, const SymbolTable &table,
                                  const std::vector<const Symbol *> &symbols,
                                  SymbolPredicate isData) {
  auto it = regions_.find(key);
  if (it == regions_.end())
    return lldbError("no module for the region");
  RegionModule &region = it->second;
  const std::string path = region.directory + "/" + RegionFiles::symbols(++region.deltas);
  return attachSymbolFile(debugger, target, region, path, table, symbols, isData);
}

llvm::Error RegionModules::attachDebugInfo(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                           uint64_t key,
                                           const std::vector<DebugFunction> &functions,
                                           const JitTables &tables, LinePlausible plausible,
                                           std::vector<LldbSymbol> symbols) {
  auto it = regions_.find(key);
  if (it == regions_.end())
    return lldbError("no module for the region");
  RegionModule &region = it->second;
  llvm::Expected<std::string> image = buildDebugObject(
      *code_.arch, region.section, region.uuid, RegionFiles::kObject, functions, tables, plausible,
      std::move(symbols));
  if (!image)
    return image.takeError();
  // The previous one stays until the module goes: LLDB may still read it.
  const std::string path = region.directory + "/" + RegionFiles::debug(++region.debugObjects);
  if (llvm::Error err = writeFileAtomically(path, *image))
    return err;
  region.files.push_back(path);
  return addSymbolFile(debugger, target, path);
}

void RegionModules::remove(lldb::SBTarget &target, uint64_t key) {
  auto it = regions_.find(key);
  if (it == regions_.end())
    return;
  discard(target, it->second);
  regions_.erase(it);
}

void RegionModules::removeAll(lldb::SBTarget &target) {
  for (auto &entry : regions_)
    discard(target, entry.second);
  regions_.clear();
}

} // namespace jitsym::plugin
