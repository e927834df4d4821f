// PHP's op_arrays, found through the symbols LLDB has of php and opcache.
#include "PhpFunctions.h"

namespace jitsym::plugin {
namespace {

// The stack searched at a compile stop: the op_array is an argument of the
// compiler's frames some 1-2 KiB above the write (measured with PHP 8.2.36).
constexpr uint64_t kStackBytes = 8192;

lldb::SBSymbol dataSymbol(lldb::SBTarget &target, const char *name, const char *inModule) {
  lldb::SBSymbolContextList found = target.FindSymbols(name, lldb::eSymbolTypeData);
  for (uint32_t i = 0; i < found.GetSize(); ++i) {
    lldb::SBSymbolContext context = found.GetContextAtIndex(i);
    const char *file = context.GetModule().GetFileSpec().GetFilename();
    if (!inModule || (file && std::string_view(file).find(inModule) != std::string_view::npos))
      return context.GetSymbol();
  }
  return lldb::SBSymbol();
}

} // namespace

bool PhpFunctions::knowsEngine(lldb::SBTarget &target) {
  if (looked_)
    return layout_ != nullptr;
  looked_ = true;
  lldb::SBSymbol globals = dataSymbol(target, "executor_globals", nullptr);
  // opcache's zend_extension_version_info: its first field is the Zend
  // extension API, one number per PHP version.
  lldb::SBSymbol version = dataSymbol(target, "extension_version_info", "opcache");
  if (!globals.IsValid()) {
    missing_ = "no executor_globals symbol (a ZTS build, or php's symbols are not loaded)";
    return false;
  }
  if (!version.IsValid()) {
    missing_ = "opcache's extension_version_info is not loaded";
    return false;
  }
  lldb::SBError error;
  lldb::SBProcess process = target.GetProcess();
  const uint64_t api = process.ReadUnsignedFromMemory(
      version.GetStartAddress().GetLoadAddress(target), 4, error);
  layout_ = error.Success() ? phpLayoutFor(static_cast<uint32_t>(api)) : nullptr;
  if (!layout_) {
    missing_ = "jitsym knows PHP 8.2's op_arrays only (this opcache says Zend extension API " +
               std::to_string(api) + ")";
    return false;
  }
  executorGlobals_ = globals.GetStartAddress().GetLoadAddress(target);
  return true;
}

std::vector<uint64_t> PhpFunctions::describe(lldb::SBTarget &target, lldb::SBThread compiling,
                                             const ReadPieces &read,
                                             const std::vector<const Symbol *> &added,
                                             JitTables &tables) {
  keepDescribed(tables);
  // The PHP functions to describe: the new ones, and those announced before
  // but not found then, whose modules LLDB has without their entries.
  struct Wanted {
    AddressRange code;
    std::string symbol;
    PhpFunctionName name;
    bool published = false;
  };
  std::vector<Wanted> wanted;
  for (const Symbol *symbol : added)
    if (std::optional<PhpFunctionName> name = parsePhpJitName(tables.symbols.name(*symbol))) {
      seen_.insert(symbol->address);
      waiting_.erase(symbol->address);
      wanted.push_back({{symbol->address, symbol->end()}, std::string(tables.symbols.name(*symbol)),
                        std::move(*name), false});
    }
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const Symbol *symbol = tables.symbols.findByAddress(it->first);
    std::optional<PhpFunctionName> name =
        symbol && symbol->address == it->first && tables.symbols.name(*symbol) == it->second
            ? parsePhpJitName(it->second)
            : std::nullopt;
    if (!name) {
      it = waiting_.erase(it); // other code there now
      continue;
    }
    wanted.push_back({{symbol->address, symbol->end()}, it->second, std::move(*name), true});
    ++it;
  }
  if (wanted.empty() || !knowsEngine(target))
    return {};

  // At a compile stop: the op_array of the code being written is on the
  // compiler's stack, and beside it the script, whose tables hold the rest.
  std::string stack;
  if (compiling.IsValid()) {
    const uint64_t sp = compiling.GetFrameAtIndex(0).GetSP();
    std::vector<std::string> got = read({{sp, sp + kStackBytes}});
    if (!got.empty())
      stack = std::move(got[0]);
  }
  std::optional<uint64_t> script;
  std::vector<std::optional<PhpFunction>> found(wanted.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    const Wanted &w = wanted[i];
    if (auto known = described_.find(w.code.start); known != described_.end())
      found[i] = phpFunctionAt(*layout_, read, known->second.function.opArray, w.name, w.code);
    if (!found[i] && !stack.empty())
      found[i] = phpFunctionOnStack(*layout_, read, stack, w.name, w.code);
    if (found[i] && !stack.empty() && !script)
      script = phpScriptOnStack(*layout_, read, stack, *found[i]);
  }
  std::vector<uint64_t> remake;
  for (size_t i = 0; i < wanted.size(); ++i) {
    const Wanted &w = wanted[i];
    if (!found[i] && script)
      found[i] = phpFunctionInScript(*layout_, read, *script, w.name, w.code);
    // The engine's tables: the script is declared by the user's next stop.
    if (!found[i] && (!w.published || !compiling.IsValid()))
      found[i] = phpFunctionByName(*layout_, read, executorGlobals_, w.name, w.code);
    if (!found[i]) {
      described_.erase(w.code.start);
      waiting_[w.code.start] = w.symbol;
      continue;
    }
    waiting_.erase(w.code.start);
    Described &d = described_[w.code.start];
    d = {w.symbol, w.code.end, std::move(*found[i])};
    apply(w.code.start, d, tables);
    if (w.published)
      remake.push_back(w.code.start);
  }
  return remake;
}

void PhpFunctions::apply(uint64_t start, const Described &d, JitTables &tables) {
  // The first line covers the code up to the entry, and no further: the
  // op_array says nothing of the lines after it.
  const uint64_t entry = d.function.entry.value_or(start);
  std::vector<JitLineEntry> rows{{start, d.function.line, 0, d.function.file}};
  if (entry + 1 < d.end)
    rows.push_back({entry + 1, 0, 0, d.function.file});
  tables.lines.set(start, rows);
  tables.lines.setEntryPoint(start, d.function.entry);
}

void PhpFunctions::keepDescribed(JitTables &tables) {
  // PHP announces each function in its perf map and its jitdump: the
  // jitdump's CODE_LOAD of the same code drops the lines set for the map's
  // symbol (new code at that address), and the symbol, identical, is not new.
  for (auto it = described_.begin(); it != described_.end();) {
    const Symbol *symbol = tables.symbols.findByAddress(it->first);
    if (!symbol || symbol->address != it->first || symbol->end() != it->second.end ||
        tables.symbols.name(*symbol) != it->second.name) {
      it = described_.erase(it); // other code there now
      continue;
    }
    if (!tables.lines.entries(it->first))
      apply(it->first, it->second, tables);
    ++it;
  }
}

size_t PhpFunctions::entered() const {
  size_t n = 0;
  for (const auto &[start, d] : described_)
    n += d.function.entry.has_value();
  return n;
}

std::optional<std::string> PhpFunctions::status() const {
  if (seen_.empty())
    return std::nullopt;
  if (!layout_)
    return "PHP functions: op_arrays not read: " + missing_;
  return std::string(layout_->version) + " op_arrays: " + std::to_string(described_.size()) + " of " +
         std::to_string(seen_.size()) + " functions found, " + std::to_string(entered()) +
         " entered past their start";
}

} // namespace jitsym::plugin
