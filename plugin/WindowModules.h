// The LLDB side of the JIT symbols of one process: one module per window of JIT
// memory. A module is an unwind object (ELF: code section + frame-pointer
// .eh_frame, see core UnwindObject.h) plus JSON symbol files attached with
// `target symbols add`. Additions go in as small delta files; a window whose code
// was replaced or freed is rebuilt as a new module, because LLDB can add symbols
// to a module but never remove them. A window with source lines also gets a
// debug object (core DebugObject.h) after its JSON files: each `target symbols
// add` replaces the module's symbol file (the JSON symbols stay in its symbol
// table), so the debug object is written again after every delta.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "jitsym/DebugObject.h"
#include "jitsym/LineTables.h"
#include "jitsym/Regions.h"
#include "jitsym/SymbolTable.h"
#include "jitsym/Uuid.h"
#include "lldb/API/LLDB.h"
#include "llvm/Support/Error.h"

namespace jitsym::plugin {

struct WindowModule {
  AddressRange section;
  uint32_t generation = 0;
  uint32_t deltas = 0;
  uint32_t debugObjects = 0; // written so far (the last one is in use)
  uint64_t symbols = 0;
  UuidBytes uuid{};
  lldb::SBModule module;
  std::string directory;
  std::vector<std::string> files; // to delete when the module goes
};

class WindowModules {
public:
  // `directory` is private to this process's session; `identity` names the
  // process so UUIDs are stable per window, generation and process.
  WindowModules(std::string directory, std::string identity)
      : directory_(std::move(directory)), identity_(std::move(identity)) {}

  // Replaces window `index` with a module holding `symbols` (none: removes it).
  llvm::Error rebuild(lldb::SBDebugger &debugger, lldb::SBTarget &target, uint64_t index,
                      const AddressRange &section, const SymbolTable &table,
                      const std::vector<const Symbol *> &symbols);
  // Attaches `symbols` to the existing module of window `index`.
  llvm::Error append(lldb::SBDebugger &debugger, lldb::SBTarget &target, uint64_t index,
                     const SymbolTable &table, const std::vector<const Symbol *> &symbols);
  // Gives the module of window `index` the source lines and unwind tables of
  // its functions (all of the window's live functions, with them or without).
  llvm::Error attachDebugInfo(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                              uint64_t index, const std::vector<DebugFunction> &functions,
                              const LineTables &lines, const UnwindTables &unwind,
                              LinePlausible plausible);

  const WindowModule *find(uint64_t index) const;
  // Whether `module` is the one this object made for the window of `address`.
  bool isWindowModule(uint64_t address, const lldb::SBModule &module) const;
  size_t size() const { return windows_.size(); }
  uint64_t symbolCount() const;

  // Removes every module from `target` and deletes the files.
  void removeAll(lldb::SBTarget &target);

private:
  llvm::Error addSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                            const std::string &path);
  llvm::Error attachSymbolFile(lldb::SBDebugger &debugger, lldb::SBTarget &target,
                               WindowModule &window, const std::string &path,
                               const SymbolTable &table,
                               const std::vector<const Symbol *> &symbols);
  void discard(lldb::SBTarget &target, WindowModule &window);
  llvm::Expected<std::string> moduleDirectory(uint64_t index, uint32_t generation) const;

  std::string directory_;
  std::string identity_;
  std::map<uint64_t, WindowModule> windows_;
};

} // namespace jitsym::plugin
