#include "CodeHeapLookup.h"

#include <algorithm>

namespace jitsym::jvmti {
namespace {

// `address` lies in this heap's committed memory [low, high).
std::optional<uintptr_t> nmethodInHeap(const NmethodLayout &layout, uintptr_t heap, uintptr_t low,
                                       uintptr_t high, uintptr_t address) {
  const NmethodLayout &l = layout;
  const int64_t log2Segment = loadInteger(heap, l.heapLog2Segment);
  if (log2Segment <= 0 || log2Segment > 30)
    return std::nullopt;
  const auto mapLow = load<uintptr_t>(heap + l.heapSegmap + l.spaceLow);
  const auto mapHigh = load<uintptr_t>(heap + l.heapSegmap + l.spaceHigh);
  if (!mapLow || mapHigh <= mapLow)
    return std::nullopt;
  // Only segments both committed and mapped can be looked at.
  const uintptr_t segments = std::min((high - low) >> log2Segment, mapHigh - mapLow);
  uintptr_t segment = (address - low) >> log2Segment;
  if (segment >= segments)
    return std::nullopt;
  // Segment map: 0xff marks a free segment, 0 a block's first segment, any
  // other value how many segments to step back towards it. Each step goes
  // back at least one segment, so the walk ends.
  constexpr uint8_t kFree = 0xff;
  for (auto hop = load<uint8_t>(mapLow + segment); hop != 0;
       hop = load<uint8_t>(mapLow + segment)) {
    if (hop == kFree || hop > segment)
      return std::nullopt;
    segment -= hop;
  }
  const uintptr_t block = low + (segment << log2Segment);
  if (high - block < l.blockHeader + l.nmethodSize || loadInteger(block, l.blockUsed) == 0)
    return std::nullopt;
  const int64_t length = loadInteger(block, l.blockLength);
  if (length <= 0 || static_cast<uint64_t>(length) > (high - block) >> log2Segment)
    return std::nullopt;
  const uintptr_t blockEnd = block + (static_cast<uint64_t>(length) << log2Segment);
  const uintptr_t blob = block + l.blockHeader;
  if (address >= blockEnd || blockEnd - blob < l.nmethodSize)
    return std::nullopt;
  // Only an nmethod has a header this large (and, where blobs say, is of
  // the nmethod kind), and its code must be the code asked about.
  const int64_t headerSize = loadInteger(blob, l.blobHeaderSize);
  const int64_t size = loadInteger(blob, l.blobSize);
  if (headerSize < 0 || static_cast<uint64_t>(headerSize) < l.nmethodSize || size < headerSize ||
      static_cast<uint64_t>(size) > blockEnd - blob)
    return std::nullopt;
  if (l.blobKind && loadInteger(blob, *l.blobKind) != l.nmethodKind)
    return std::nullopt;
  if (l.blobCodeBegin) {
    if (load<uintptr_t>(blob + *l.blobCodeBegin) != address)
      return std::nullopt;
  } else {
    const int64_t codeOffset = loadInteger(blob, l.blobCodeOffset);
    if (codeOffset < headerSize || codeOffset > size ||
        blob + static_cast<uint64_t>(codeOffset) != address)
      return std::nullopt;
  }
  return blob;
}

} // namespace

std::optional<uintptr_t> nmethodAt(const NmethodLayout &layout, uintptr_t address) {
  // Read at each lookup: the list is filled in during VM start, possibly
  // after the agent was created.
  const NmethodLayout &l = layout;
  const auto heaps = load<uintptr_t>(l.heapsVariable);
  if (!heaps)
    return std::nullopt;
  const int64_t count = loadInteger(heaps, l.arrayLength);
  const auto data = load<uintptr_t>(heaps + l.arrayData);
  // HotSpot has a handful of code heaps; more means the list is not one.
  if (!data || count <= 0 || count > 64)
    return std::nullopt;
  for (int64_t i = 0; i < count; ++i) {
    const auto heap = load<uintptr_t>(data + static_cast<uintptr_t>(i) * sizeof(uintptr_t));
    if (!heap)
      continue;
    const auto low = load<uintptr_t>(heap + l.heapMemory + l.spaceLow);
    const auto high = load<uintptr_t>(heap + l.heapMemory + l.spaceHigh);
    if (low <= address && address < high)
      return nmethodInHeap(l, heap, low, high, address);
  }
  return std::nullopt;
}

} // namespace jitsym::jvmti
