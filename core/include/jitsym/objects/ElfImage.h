// The small ELF64 x86-64 images jitsym gives LLDB for a JIT window: sections
// with no code bytes (the code is read from the live process), a build-id note
// that ties the image to its JSON symbol files, at most one load segment, and
// a .symtab when the image carries the window's symbols itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/objects/LldbSymbols.h"
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
  uint32_t link = 0; // sh_link: a header index (the null header is 0)
  uint32_t info = 0;
  uint64_t entrySize = 0;
};

struct ElfImageSpec {
  uint16_t machine = 0;                   // e_machine (jitsym/arch/Architecture.h)
  UuidBytes buildId{};                    // written as .note.gnu.build-id
  std::optional<AddressRange> loadSegment; // one PT_LOAD with no file bytes
  std::vector<ElfSection> sections;
  // Written as .symtab (with .strtab), all defined in the first section: code
  // symbols as STT_FUNC, data symbols as STT_OBJECT, in this order.
  std::vector<LldbSymbol> symbols;
};

std::string writeElfImage(const ElfImageSpec &spec);

// The window's code section: allocated, no bytes. Every image of a window has
// the same one, so LLDB matches the sections of its object and debug files.
ElfSection codeSection(const AddressRange &text);

} // namespace jitsym
