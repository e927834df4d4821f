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
                                   const std::vector<int> &descriptors) {
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
      std::string bytes(end - base, '\0');
      if (process.ReadMemory(base, bytes.data(), bytes.size(), error) != bytes.size() ||
          error.Fail())
        return {};
      return bytes;
    }
    file = reinterpret_cast<uintptr_t>(copy._chain);
  }
  return {};
}

} // namespace jitsym::plugin
