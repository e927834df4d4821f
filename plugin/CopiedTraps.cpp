// Giving moved code the instructions LLDB's copied traps hide.
#include "CopiedTraps.h"

#include <algorithm>
#include <array>

namespace jitsym::plugin {

size_t restoreCopiedTraps(lldb::SBProcess &process, const PendingBreakpoints &pending,
                          const std::vector<JitCodeMove> &moves) {
  // Long enough for any architecture's breakpoint instruction (x86-64: 1 byte,
  // AArch64: 4); the bytes after a short one are equal in both copies anyway.
  constexpr size_t kTrapBytes = 4;
  size_t written = 0;
  for (const JitCodeMove &move : moves) {
    for (uint64_t location : pending.locationsIn(move.oldAddress, move.oldAddress + move.codeSize)) {
      const uint64_t offset = location - move.oldAddress;
      const size_t length = static_cast<size_t>(std::min<uint64_t>(kTrapBytes, move.codeSize - offset));
      std::array<char, kTrapBytes> original{}, copy{};
      lldb::SBError error;
      // LLDB answers with its traps taken out where it has a site: the old
      // code's instruction. The new code has no site yet: its raw bytes.
      if (process.ReadMemory(location, original.data(), length, error) != length ||
          process.ReadMemory(move.newAddress + offset, copy.data(), length, error) != length)
        continue;
      if (std::equal(original.begin(), original.begin() + length, copy.begin()))
        continue;
      written += process.WriteMemory(move.newAddress + offset, original.data(), length, error);
    }
  }
  return written;
}

} // namespace jitsym::plugin
