// A process's memory map (the text of /proc/PID/maps), parsed as a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/base/Diagnostic.h"

namespace jitsym {

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  bool read = false, write = false, execute = false, shared = false;
  uint64_t offset = 0;
  uint64_t inode = 0;
  std::string path; // empty for anonymous memory; "[heap]", "/usr/bin/node", ...

  // Backed by a file that a debugger has a module for. memfd and deleted files
  // are how some JITs double-map code, so they count as JIT memory.
  bool isFileBacked() const;
  // Kernel-provided special mappings never hold JIT code.
  bool isSpecial() const;
};

std::vector<Mapping> parseMemoryMap(std::string_view text, const std::string &source,
                                    std::vector<Diagnostic> *diagnostics = nullptr);

} // namespace jitsym
