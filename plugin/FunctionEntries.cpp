// Function entries from process memory, by page.
#include "FunctionEntries.h"

#include <algorithm>

namespace jitsym::plugin {
namespace {

constexpr uint64_t kPageSize = 4096;
// Pages are read this many at a time (one request to the process instead of
// sixteen: a region's functions fill their pages), page by page where some
// of them cannot be read.
constexpr uint64_t kPagesPerRead = 16;

} // namespace

const std::string &FunctionEntries::page(uint64_t base) {
  if (auto it = pages_.find(base); it != pages_.end())
    return it->second;
  if (process_.IsValid()) {
    // LLDB gives the bytes under its breakpoint traps, not the traps.
    const uint64_t first = base & ~(kPageSize * kPagesPerRead - 1);
    std::string bytes(kPageSize * kPagesPerRead, '\0');
    lldb::SBError error;
    const size_t got = process_.ReadMemory(first, bytes.data(), bytes.size(), error);
    if (error.Success() && got == bytes.size()) {
      for (uint64_t i = 0; i < kPagesPerRead; ++i)
        pages_.try_emplace(first + i * kPageSize, bytes.substr(i * kPageSize, kPageSize));
    } else {
      std::string one(kPageSize, '\0');
      lldb::SBError pageError;
      const size_t gotPage = process_.ReadMemory(base, one.data(), one.size(), pageError);
      if (pageError.Success() && gotPage == one.size())
        return pages_[base] = std::move(one);
    }
  }
  return pages_[base]; // empty when it cannot be read
}

FramePointer FunctionEntries::at(uint64_t start, uint64_t size) {
  uint64_t want = kFramePointerProbeBytes;
  if (size > 0)
    want = std::min(want, size);
  std::string bytes;
  for (uint64_t at = start; at - start < want;) {
    const uint64_t base = at & ~(kPageSize - 1);
    const std::string &memory = page(base);
    if (memory.empty())
      break; // what was read so far may be enough to tell
    const uint64_t offset = at - base;
    const uint64_t take = std::min(want - (at - start), kPageSize - offset);
    bytes.append(memory, offset, take);
    at += take;
  }
  return framePointerAtEntry(
      llvm::ArrayRef(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

} // namespace jitsym::plugin
