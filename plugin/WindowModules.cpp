// Module lifecycle for JIT windows, through LLDB's public SB API only.
#include "WindowModules.h"

#include <cstdio>
#include <unistd.h>

#include "jitsym/PrivateDir.h"
#include "jitsym/SymbolFileWriter.h"
#include "jitsym/UnwindObject.h"

namespace jitsym::plugin {
namespace {

llvm::Error lldbError(const std::string &what) {
  return llvm::createStringError(std::errc::io_error, "%s", what.c_str());
}

} // namespace

// Each module gets a directory of its own, so that its object can be called just
// "jit": that is the name LLDB shows in backtraces ("jit`JS:*leaf ...") and the
// one `--shlib jit` selects.
llvm::Expected<std::string> WindowModules::moduleDirectory(uint64_t index,
                                                           uint32_t generation) const {
  char name[64];
  std::snprintf(name, sizeof(name), "w%llx-g%u", static_cast<unsigned long long>(index),
                generation);
  return privateSubdirectory(directory_, name);
}

const WindowModule *WindowModules::find(uint64_t index) const {
  auto it = windows_.find(index);
  return it == windows_.end() ? nullptr : &it->second;
}

bool WindowModules::isWindowModule(uint64_t address, const lldb::SBModule &module) const {
  const WindowModule *window = find(windowIndexOf(address));
  return window && window->module == module;
}

uint64_t WindowModules::symbolCount() const {
  uint64_t total = 0;
  for (const auto &entry : windows_)
    total += entry.second.symbols;
  return total;
}

void WindowModules::discard(lldb::SBTarget &target, WindowModule &window) {
  if (window.module.IsValid()) {
    target.ClearModuleLoadAddress(window.module);
    target.RemoveModule(window.module);
  }
  for (const std::string &file : window.files)
    ::unlink(file.c_str());
  if (!window.files.empty())
    ::rmdir(window.directory.c_str());
  window.files.clear();
  window.module = lldb::SBModule();
}

llvm::Error WindowModules::addSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                         const std::string &path) {
  lldb::SBCommandReturnObject result;
  lldb::SBExecutionContext context(target);
  std::string command = "target symbols add \"" + path + "\"";
  debugger.GetCommandInterpreter().HandleCommand(command.c_str(), context, result, false);
  if (!result.Succeeded())
    return lldbError("LLDB refused " + path + ": " +
                     std::string(result.GetError() ? result.GetError() : "unknown error"));
  return llvm::Error::success();
}

llvm::Error WindowModules::attachSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                            WindowModule &window, const std::string &path,
                                            const SymbolTable &table,
                                            const std::vector<const Symbol *> &symbols) {
  SymbolFileSpec spec;
  spec.triple = target.GetTriple() ? target.GetTriple() : "x86_64-pc-linux-gnu";
  spec.uuid = uuidToString(window.uuid);
  std::string json = renderSymbolFile(spec, table, symbols);
  if (llvm::Error err = writeFileAtomically(path, json))
    return err;
  window.files.push_back(path);
  if (llvm::Error err = addSymbolFile(debugger, target, path))
    return err;
  // LLDB merges a symbol file into the module's table lazily; a second add before
  // anything reads the table would drop the first file's symbols. Read it now.
  window.module.GetNumSymbols();
  window.symbols += symbols.size();
  return llvm::Error::success();
}

llvm::Error WindowModules::rebuild(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                   uint64_t index, const AddressRange &section,
                                   const SymbolTable &table,
                                   const std::vector<const Symbol *> &symbols) {
  uint32_t generation = 0;
  if (auto it = windows_.find(index); it != windows_.end()) {
    generation = it->second.generation + 1;
    discard(target, it->second);
    windows_.erase(it);
  }
  if (symbols.empty())
    return llvm::Error::success();

  WindowModule window;
  window.section = section;
  window.generation = generation;
  window.uuid = uuidFromName(identity_ + "/window/" + std::to_string(index) + "/" +
                             std::to_string(generation));
  llvm::Expected<std::string> directory = moduleDirectory(index, generation);
  if (!directory)
    return directory.takeError();
  window.directory = *directory;
  const std::string objectPath = window.directory + "/jit";
  if (llvm::Error err = writeFileAtomically(objectPath, buildUnwindObject(section, window.uuid)))
    return err;
  window.files.push_back(objectPath);

  lldb::SBModuleSpec moduleSpec;
  moduleSpec.SetFileSpec(lldb::SBFileSpec(objectPath.c_str(), false));
  window.module = lldb::SBModule(moduleSpec);
  if (!window.module.IsValid() || !target.AddModule(window.module)) {
    discard(target, window);
    return lldbError("LLDB could not add the module " + objectPath);
  }
  lldb::SBError loadError = target.SetModuleLoadAddress(window.module, uint64_t(0));
  if (loadError.Fail()) {
    discard(target, window);
    return lldbError("LLDB could not load " + objectPath + ": " + loadError.GetCString());
  }
  if (llvm::Error err = attachSymbolFile(debugger, target, window, objectPath + ".json", table, symbols)) {
    discard(target, window);
    return err;
  }
  windows_.emplace(index, std::move(window));
  return llvm::Error::success();
}

llvm::Error WindowModules::append(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                  uint64_t index, const SymbolTable &table,
                                  const std::vector<const Symbol *> &symbols) {
  auto it = windows_.find(index);
  if (it == windows_.end())
    return lldbError("no module for window");
  WindowModule &window = it->second;
  const std::string path =
      window.directory + "/jit.d" + std::to_string(++window.deltas) + ".json";
  return attachSymbolFile(debugger, target, window, path, table, symbols);
}

llvm::Error WindowModules::attachDebugInfo(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                                           uint64_t index,
                                           const std::vector<DebugFunction> &functions,
                                           const LineTables &lines, const UnwindTables &unwind,
                                           LinePlausible plausible) {
  auto it = windows_.find(index);
  if (it == windows_.end())
    return lldbError("no module for window");
  WindowModule &window = it->second;
  llvm::Expected<std::string> image =
      buildDebugObject(window.section, window.uuid, "jit", functions, lines, unwind, plausible);
  if (!image)
    return image.takeError();
  // The previous one stays until the module goes: LLDB may still read it.
  const std::string path =
      window.directory + "/jit.debug" + std::to_string(++window.debugObjects);
  if (llvm::Error err = writeFileAtomically(path, *image))
    return err;
  window.files.push_back(path);
  return addSymbolFile(debugger, target, path);
}

void WindowModules::removeAll(lldb::SBTarget &target) {
  for (auto &entry : windows_)
    discard(target, entry.second);
  windows_.clear();
}

} // namespace jitsym::plugin
