// A tiny ELF object that gives LLDB trustworthy unwind rules for a JIT window.
//
// Why: once LLDB knows a JIT function's bounds it builds the caller-frame unwind
// plan by inspecting the function's instructions, and on JIT code (V8) that
// inserts bogus frames. An .eh_frame FDE covering the window with the
// frame-pointer rule (CFA = rbp+16, return address at CFA-8, caller's rbp at
// CFA-16) is what LLDB prefers for caller frames, so backtraces through JIT code
// are exactly the frame-pointer unwind they were without symbols. Only code
// that keeps a frame pointer gets it (FramePointer.h): elsewhere the rule is
// wrong, and LLDB's analysis is right. The object has
// no code bytes: code is read from the live process. Names come from its own
// .symtab, or from JSON symbol files that carry its build-id as their UUID.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jitsym/arch/Architecture.h"
#include "jitsym/objects/ElfImage.h"
#include "jitsym/objects/LldbSymbols.h"

#include "jitsym/plan/FramePointer.h"
#include "jitsym/plan/Regions.h"
#include "jitsym/plan/Uuid.h"

namespace jitsym {

// Returns the ELF image for `arch`'s code (its machine and frame-pointer rule).
// With `symbols`, the image carries them in its .symtab: LLDB resolves a
// breakpoint in a module from its object's own symbols as the module is added,
// which it does not for symbols of a JSON file added after it. With
// `debugSections` (DebugObject.h), it carries the region's lines too, and a
// file-and-line breakpoint resolves in it as it is added. `framePointerCode`:
// the code that gets the frame-pointer rule and the prologues its FDEs
// describe (framePointerRanges); none: all of `text` (nothing is known of
// its code).
std::string buildUnwindObject(const Architecture &arch, const AddressRange &text,
                              const UuidBytes &buildId,
                              std::vector<LldbSymbol> symbols = {},
                              std::vector<ElfSection> debugSections = {},
                              std::optional<FramePointerCode> framePointerCode = {});

} // namespace jitsym
