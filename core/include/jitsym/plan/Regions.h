// Where JIT code may lie in a process: the runs of anonymous memory of its memory
// map. RegionPlanner.h cuts them into the regions LLDB gets as modules.
#pragma once

#include <cstdint>
#include <algorithm>
#include <optional>
#include <vector>

#include "jitsym/base/AddressRange.h"
#include "jitsym/formats/MemoryMap.h"

namespace jitsym {

// Whether `m` maps, executable, file pages that another executable mapping of
// the same file maps elsewhere: V8 (Node 22 and later, Deno) copies its
// embedded builtins so, near its code, and names them there in its perf map
// and jitdump. The debugger's module of the file covers the other mapping
// only, so the copy is named as JIT code is.
bool isCopyOfMappedCode(const Mapping &m, const std::vector<Mapping> &mappings);

// Where JIT code may live in a process, built from its memory map: maximal runs of
// adjacent mappings that are neither file-backed (copies of mapped code aside)
// nor special. Without a memory map (offline), every address is allowed.
class JitAddressSpace {
public:
  static JitAddressSpace fromMemoryMap(const std::vector<Mapping> &mappings);
  static JitAddressSpace unrestricted();
  // The same space less `ranges` (in any order, may overlap): memory another
  // module of the debugger names is no JIT memory.
  JitAddressSpace excluding(std::vector<AddressRange> ranges) const;

  // The run of JIT memory containing `address`, or nothing when the address is
  // file-backed, special or unmapped.
  std::optional<AddressRange> runContaining(uint64_t address) const;
  // Whether the memory at `address` is executable; nothing without a memory map.
  std::optional<bool> executable(uint64_t address) const;
  // Whether it is writable and not executable (code still being written, or
  // data); false without a memory map.
  bool writableNotExecutable(uint64_t address) const;
  bool hasMemoryMap() const { return hasMap_; }
  // A digest of where memory is executable: it changes when a page's
  // permission does (a JIT making its code executable after writing it).
  uint64_t executableDigest() const;

private:
  std::vector<AddressRange> runs_;       // sorted, disjoint
  std::vector<AddressRange> executable_; // of the runs, sorted, disjoint
  std::vector<AddressRange> writable_;   // of the runs, not executable: sorted, disjoint
  bool hasMap_ = false;
};

} // namespace jitsym
