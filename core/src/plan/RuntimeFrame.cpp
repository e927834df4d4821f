// The deepest row of a function's unwind table (EhFrameParser.h's rows).
#include "jitsym/plan/RuntimeFrame.h"

namespace jitsym {

std::optional<RuntimeFrame> deepestFrameOf(const std::vector<CallFrameInfo> &frames,
                                           uint64_t address, uint32_t stackPointer) {
  for (const CallFrameInfo &frame : frames) {
    if (address < frame.start || address >= frame.end)
      continue;
    const std::optional<std::vector<CfaRow>> rows = cfaRowsOf(frame);
    if (!rows)
      return std::nullopt;
    const CfaRow *deepest = nullptr;
    for (const CfaRow &row : *rows)
      if (row.cfaRegister == stackPointer && (!deepest || row.cfaOffset > deepest->cfaOffset))
        deepest = &row;
    if (!deepest)
      return std::nullopt;
    return RuntimeFrame{stackPointer, deepest->cfaOffset, deepest->saved};
  }
  return std::nullopt;
}

} // namespace jitsym
