// The memory map of a crashed process, read from its ELF core file (written by
// the kernel or by gdb's gcore): which ranges were anonymous memory, where JIT
// code lives, and which were file-backed. Only headers and notes are read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/formats/MemoryMap.h"
#include "jitsym/base/AddressRange.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace jitsym {

struct CoreProcess {
  uint64_t pid = 0;
  std::optional<uint32_t> uid;
  std::string command;   // pr_fname
  std::string arguments; // pr_psargs, without the kernel's trailing blanks
};

struct CoreFileInfo {
  std::string architecture;           // llvm::Triple arch name from e_machine: "x86_64", "aarch64"
  std::optional<CoreProcess> process; // from NT_PRPSINFO when present
  // One per PT_LOAD with p_memsz > 0, sorted by start: start/end from
  // p_vaddr/p_memsz, read/write/execute from p_flags, path and offset (bytes)
  // from the NT_FILE entry that covers it (the PT_LOAD matches it exactly or
  // lies inside it), inode 1 when a path was found, 0 (anonymous) otherwise.
  // gcore writes no PT_LOAD for unmodified read-only file mappings.
  std::vector<Mapping> mappings;
  bool hasFileNote = false; // an NT_FILE note was found
  uint64_t fileSize = 0;    // bytes in the core file
  uint64_t bytesNeeded = 0; // the largest p_offset + p_filesz over all program headers
  // In a truncated core, the memory of each PT_LOAD whose file bytes run past
  // the file's end, from the first byte cut: it reads as missing in LLDB.
  // Sorted by start.
  std::vector<AddressRange> missing;
  bool truncated() const { return bytesNeeded > fileSize; }
};

// Pure: parses the bytes of a whole core file (or a truncated prefix of one).
// x86_64 and aarch64 little-endian ELF64 cores only. A core cut inside its
// PT_LOAD data parses (truncated()); one cut before the end of its program
// headers or notes, or with malformed notes, is an error naming `path`, the
// place and the problem.
llvm::Expected<CoreFileInfo> parseCoreFile(llvm::StringRef bytes, const std::string &path);

// Maps the file (not copied; a core may be gigabytes, of which only the
// headers and notes are read) and parses it.
llvm::Expected<CoreFileInfo> readCoreFile(const std::string &path);

} // namespace jitsym
