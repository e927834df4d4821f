// Walks glibc's list of FILEs in a stopped process through the SB API.
#include "StdioBuffer.h"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace jitsym::plugin {
namespace {

constexpr uint32_t kFileMagic = 0xFBAD0000;    // glibc's _IO_MAGIC
constexpr uint32_t kMagicMask = 0xFFFF0000;
constexpr int kNoWrites = 0x0008;               // glibc's _IO_NO_WRITES: opened for reading
constexpr int kMaxFiles = 4096;                 // a list longer than this is not glibc's
constexpr uint64_t kMaxPending = 64ull << 20;   // glibc buffers are far smaller

} // namespace

std::string StdioBuffer::unflushed(lldb::SBTarget &target, lldb::SBProcess &process,
                                   const std::vector<int> &descriptors, uint64_t fileSize) {
  if (descriptors.empty() || target.GetAddressByteSize() != sizeof(void *))
    return {};
  if (!listHead_) {
    listHead_ = 0;
    lldb::SBSymbolContextList found = target.FindSymbols("_IO_list_all", lldb::eSymbolTypeData);
    for (uint32_t i = 0; i < found.GetSize() && *listHead_ == 0; ++i) {
      lldb::SBSymbol symbol = found.GetContextAtIndex(i).GetSymbol();
      uint64_t address = symbol.GetStartAddress().GetLoadAddress(target);
      if (address != LLDB_INVALID_ADDRESS)
        listHead_ = address;
    }
  }
  if (*listHead_ == 0)
    return {};

  lldb::SBError error;
  uint64_t file = process.ReadPointerFromMemory(*listHead_, error);
  for (int seen = 0; error.Success() && file != 0 && seen < kMaxFiles; ++seen) {
    struct _IO_FILE copy;
    if (process.ReadMemory(file, &copy, sizeof(copy), error) != sizeof(copy) || error.Fail())
      return {};
    if ((static_cast<uint32_t>(copy._flags) & kMagicMask) != kFileMagic)
      return {};
    if (std::find(descriptors.begin(), descriptors.end(), copy._fileno) != descriptors.end()) {
      // A FILE that does not write, or whose pointers leave its own buffer,
      // holds nothing for the file.
      const uint64_t base = reinterpret_cast<uintptr_t>(copy._IO_write_base);
      const uint64_t end = reinterpret_cast<uintptr_t>(copy._IO_write_ptr);
      const uint64_t bufferStart = reinterpret_cast<uintptr_t>(copy._IO_buf_base);
      const uint64_t bufferEnd = reinterpret_cast<uintptr_t>(copy._IO_buf_end);
      if ((copy._flags & kNoWrites) != 0 || base == 0 || end <= base ||
          end - base > kMaxPending || base < bufferStart || end > bufferEnd)
        return {};
      // The same FILE, not flushed since (the file did not grow): what was
      // read stays, if its last bytes are still there, and only the rest is read.
      std::string bytes;
      if (last_ && last_->file == file && last_->base == base && last_->fileSize == fileSize &&
          last_->bytes.size() <= end - base) {
        const size_t check = std::min<size_t>(last_->bytes.size(), 64);
        std::string tail(check, '\0');
        const uint64_t at = base + last_->bytes.size() - check;
        if (process.ReadMemory(at, tail.data(), check, error) == check && error.Success() &&
            tail == std::string_view(last_->bytes).substr(last_->bytes.size() - check))
          bytes = std::move(last_->bytes);
      }
      last_.reset();
      const size_t have = bytes.size();
      bytes.resize(end - base);
      const size_t want = bytes.size() - have;
      if (want > 0 &&
          (process.ReadMemory(base + have, bytes.data() + have, want, error) != want ||
           error.Fail()))
        return {};
      last_ = LastRead{file, base, fileSize, bytes};
      return bytes;
    }
    file = reinterpret_cast<uintptr_t>(copy._chain);
  }
  return {};
}

} // namespace jitsym::plugin
