// Function entries from process memory, read in batches.
#include "FunctionEntries.h"

#include <algorithm>

namespace jitsym::plugin {
namespace {

// The bytes of a function's entry that say what it does with its frame pointer.
AddressRange entryOf(uint64_t start, uint64_t size) {
  uint64_t want = kFramePointerProbeBytes;
  if (size > 0)
    want = std::min(want, size);
  return {start, start + want};
}

bool byRange(const std::pair<AddressRange, FramePointer> &a, const AddressRange &b) {
  return a.first.start != b.start ? a.first.start < b.start : a.first.end < b.end;
}

FramePointer classify(const std::string &bytes) {
  // What could be read may be enough to tell.
  return framePointerAtEntry(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

} // namespace

void FunctionEntries::prefetch(std::vector<std::pair<uint64_t, uint64_t>> functions) {
  std::vector<AddressRange> pieces;
  pieces.reserve(functions.size());
  for (const auto &[start, size] : functions)
    pieces.push_back(entryOf(start, size));
  std::sort(pieces.begin(), pieces.end(), [](const AddressRange &a, const AddressRange &b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  // Only what is not known yet.
  pieces.erase(std::remove_if(pieces.begin(), pieces.end(),
                              [&](const AddressRange &piece) {
                                auto it = std::lower_bound(known_.begin(), known_.end(), piece,
                                                           byRange);
                                return it != known_.end() && it->first == piece;
                              }),
               pieces.end());
  if (pieces.empty())
    return;
  const std::vector<std::string> bytes = read_(pieces);
  const size_t before = known_.size();
  for (size_t i = 0; i < pieces.size(); ++i)
    known_.emplace_back(pieces[i], classify(i < bytes.size() ? bytes[i] : std::string()));
  std::inplace_merge(known_.begin(), known_.begin() + before, known_.end(),
                     [](const auto &a, const auto &b) { return byRange(a, b.first); });
}

FramePointer FunctionEntries::at(uint64_t start, uint64_t size) {
  const AddressRange entry = entryOf(start, size);
  auto it = std::lower_bound(known_.begin(), known_.end(), entry, byRange);
  if (it != known_.end() && it->first == entry)
    return it->second;
  const std::vector<std::string> bytes = read_({entry});
  return classify(bytes.empty() ? std::string() : bytes.front());
}

} // namespace jitsym::plugin
