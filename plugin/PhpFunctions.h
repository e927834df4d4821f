// Where PHP's JIT functions are entered and which line they begin at, read
// from the engine's op_arrays (core formats/PhpOpArray.h) for the symbols
// opcache names `JIT$function` or `JIT$Class::method`. A breakpoint by name
// then goes where every call passes (LineTables' entry point), and a frame
// in the function shows its script and first line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "jitsym/formats/PhpOpArray.h"
#include "jitsym/symbols/JitTables.h"
#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

class PhpFunctions {
public:
  // For new symbols named as PHP's functions: their entries and first lines
  // into `tables.lines`. At a compile stop (`compiling`: the thread that
  // stopped is writing the symbol) its stack is searched first, for the
  // script is not declared yet; otherwise the engine's tables. Returns the
  // starts of functions LLDB already has whose lines are new (found only now,
  // in the tables of the script declared since they were announced).
  std::vector<uint64_t> describe(lldb::SBTarget &target, lldb::SBThread compiling, const ReadPieces &read,
                const std::vector<const Symbol *> &added, JitTables &tables);
  // A new process.
  void forget() { *this = PhpFunctions(); }
  // For --status, once PHP's functions were seen: "PHP 8.2: 4 of 4 functions
  // entered where op_arrays say", or why none are.
  std::optional<std::string> status() const;

private:
  // Looks for PHP's engine and opcache once per process.
  bool knowsEngine(lldb::SBTarget &target);

  bool looked_ = false;
  const PhpLayout *layout_ = nullptr;
  uint64_t executorGlobals_ = 0;
  std::string missing_; // why op_arrays are not read
  struct Described {
    std::string name; // the symbol's, whose code it describes
    uint64_t end = 0;
    PhpFunction function;
  };
  void apply(uint64_t start, const Described &described, JitTables &tables);
  // Drops what describes code no longer there; sets again the lines a
  // re-announcement of the same code dropped.
  void keepDescribed(JitTables &tables);
  size_t entered() const;

  // By the code's start: the same code announced again is found there, when
  // the stack that held its op_array is gone and the script is not declared.
  std::unordered_map<uint64_t, Described> described_;
  std::unordered_set<uint64_t> seen_; // code starts with PHP functions' names
  std::unordered_map<uint64_t, std::string> waiting_; // not found yet: start -> name
};

} // namespace jitsym::plugin
