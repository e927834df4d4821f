// Unwind tables per JIT function.
#include "jitsym/symbols/UnwindTables.h"

namespace jitsym {

void UnwindTables::set(uint64_t start, std::vector<CallFrameInfo> frames) {
  if (frames.empty())
    tables_.erase(start);
  else
    tables_[start] = std::move(frames);
}

void UnwindTables::move(uint64_t from, uint64_t to) {
  auto it = tables_.find(from);
  if (it == tables_.end() || from == to)
    return;
  std::vector<CallFrameInfo> frames = std::move(it->second);
  tables_.erase(it);
  for (CallFrameInfo &frame : frames) {
    frame.start = frame.start - from + to;
    frame.end = frame.end - from + to;
  }
  tables_[to] = std::move(frames);
}

const std::vector<CallFrameInfo> *UnwindTables::frames(uint64_t start) const {
  auto it = tables_.find(start);
  return it == tables_.end() ? nullptr : &it->second;
}

} // namespace jitsym
