// The small ELF64 x86-64 images jitsym gives LLDB for a JIT window: sections
// with no code bytes (the code is read from the live process), a build-id note
// that ties the image to its JSON symbol files, and at most one load segment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/plan/Regions.h"
#include "jitsym/plan/Uuid.h"

namespace jitsym {

struct ElfSection {
  std::string name;
  uint32_t type = 0;     // llvm::ELF::SHT_*
  uint64_t flags = 0;    // llvm::ELF::SHF_*
  uint64_t address = 0;
  uint64_t noBitsSize = 0; // the size of an SHT_NOBITS section
  std::string bytes;       // the content of any other
  uint64_t alignment = 1;
};

struct ElfImageSpec {
  UuidBytes buildId{};                    // written as .note.gnu.build-id
  std::optional<AddressRange> loadSegment; // one PT_LOAD with no file bytes
  std::vector<ElfSection> sections;
};

std::string writeElfImage(const ElfImageSpec &spec);

// The window's code section: allocated, no bytes. Every image of a window has
// the same one, so LLDB matches the sections of its object and debug files.
ElfSection codeSection(const AddressRange &text);

} // namespace jitsym
