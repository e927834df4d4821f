#include "LineMapping.h"

#include <algorithm>

namespace jitsym::jvmti {

std::optional<uint32_t> lineOfBci(const std::vector<BytecodeLine> &table, int64_t bci) {
  if (bci < 0)
    return std::nullopt;
  const BytecodeLine *best = nullptr;
  for (const BytecodeLine &row : table)
    if (row.startBci <= bci && (!best || row.startBci >= best->startBci))
      best = &row;
  if (!best)
    return std::nullopt;
  return best->line;
}

std::vector<PcLine> linesBeforePcs(uint64_t start, uint64_t end, std::vector<PcLine> pcs) {
  std::stable_sort(pcs.begin(), pcs.end(),
                   [](const PcLine &a, const PcLine &b) { return a.address < b.address; });
  std::vector<PcLine> lines;
  uint64_t from = start;
  for (PcLine &pc : pcs) {
    if (pc.address <= start || pc.address > end || pc.address == from)
      continue; // outside, or a second position for the same pc: the first wins
    const uint64_t next = pc.address;
    if (lines.empty() || lines.back().file != pc.file || lines.back().line != pc.line) {
      pc.address = from;
      lines.push_back(std::move(pc));
    }
    from = next;
  }
  // What follows the last described pc (stubs, exception handlers) has no line.
  if (!lines.empty() && from < end)
    lines.push_back({from, 0, 0, ""});
  return lines;
}

} // namespace jitsym::jvmti
