// How a function entry keeps a frame pointer, per architecture (the x86-64
// and aarch64 prologues, EntryRule.h says what each answer means),
// decoded with LLVM's disassemblers (the ones LLDB uses).
#pragma once

#include <cstdint>

#include "jitsym/arch/Architecture.h"
#include "jitsym/arch/EntryRule.h"
#include "llvm/ADT/ArrayRef.h"

namespace jitsym {

// A Kept answer says where the prologue is where the architecture's FDE
// must describe it (Architecture::fdeHoldsAtEntry).
EntryRule x86_64EntryRule(llvm::ArrayRef<uint8_t> code);
EntryRule aarch64EntryRule(llvm::ArrayRef<uint8_t> code);

} // namespace jitsym
