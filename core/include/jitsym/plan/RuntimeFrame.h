// A frame that a runtime's JIT code runs on without making one of its own.
// PHP's JIT (opcache, the HYBRID VM that Debian's and most Linux builds use) is
// entered from execute_ex by a jump, never moves the stack pointer, and leaves
// by a jump: its code runs on execute_ex's frame, in place of the execute_ex
// activation that entered it. So an address of it unwinds as execute_ex's body
// does: CFA = stack pointer + execute_ex's frame size, and the registers
// execute_ex saved where it saved them. Both come from the runtime's own
// word, execute_ex's unwind table in its binary, never from a constant per
// version (PHP computes the same number at startup for its GDB JIT objects,
// sp_adj[SP_ADJ_VM], from the same table).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "jitsym/formats/EhFrameParser.h"

namespace jitsym {

struct RuntimeFrame {
  uint32_t cfaRegister = 0; // DWARF number: the stack pointer
  int64_t cfaOffset = 0;
  // DWARF register -> its slot, as an offset from the CFA (the return
  // address's included).
  std::vector<std::pair<uint32_t, int64_t>> savedRegisters;
  bool operator==(const RuntimeFrame &o) const {
    return cfaRegister == o.cfaRegister && cfaOffset == o.cfaOffset &&
           savedRegisters == o.savedRegisters;
  }
};

// The deepest frame of the function at `address` by its unwind table
// (`frames`, a binary's .eh_frame as parseEhFrame reads it): of the rows of
// the FDE that covers it, the one whose CFA is `stackPointer` plus the
// largest offset (a function's body, after its prologue), with the register
// rules in effect there. nullopt when no FDE covers it, or its CFA program
// holds what this reading does not follow (expressions, another CFA
// register in the body).
std::optional<RuntimeFrame> deepestFrameOf(const std::vector<CallFrameInfo> &frames,
                                           uint64_t address, uint32_t stackPointer);

} // namespace jitsym
