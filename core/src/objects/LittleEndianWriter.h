// Appends little-endian binary fields to a string: the ELF images and their
// CFI. Private to the core library.
#pragma once

#include <cstdint>
#include <string>

#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"

namespace jitsym {

class LittleEndianWriter {
public:
  explicit LittleEndianWriter(std::string &out) : out_(out) {}
  template <typename T> void put(T value) {
    char bytes[sizeof(T)];
    llvm::support::endian::write<T, llvm::endianness::little>(bytes, value);
    out_.append(bytes, sizeof(T));
  }
  void bytes(const void *data, size_t size) {
    out_.append(static_cast<const char *>(data), size);
  }
  void bytes(const std::string &data) { out_ += data; }
  void uleb(uint64_t v) {
    uint8_t encoded[10];
    out_.append(reinterpret_cast<const char *>(encoded), llvm::encodeULEB128(v, encoded));
  }
  void sleb(int64_t v) {
    uint8_t encoded[10];
    out_.append(reinterpret_cast<const char *>(encoded), llvm::encodeSLEB128(v, encoded));
  }
  void padTo(uint64_t alignment) {
    while (alignment > 1 && out_.size() % alignment)
      out_.push_back(0);
  }
  size_t size() const { return out_.size(); }
  void patch32(size_t at, uint32_t value) {
    llvm::support::endian::write<uint32_t, llvm::endianness::little>(&out_[at], value);
  }
  void patch64(size_t at, uint64_t value) {
    llvm::support::endian::write<uint64_t, llvm::endianness::little>(&out_[at], value);
  }

private:
  std::string &out_;
};

// Appends a CFI record (CIE or FDE, .eh_frame or .debug_frame) whose length
// field is patched once `body(start)` has written the rest, padded with
// DW_CFA_nop to the address size.
template <typename Body> void cfiRecord(LittleEndianWriter &w, Body body) {
  const size_t start = w.size();
  w.put<uint32_t>(0);
  body(start);
  while ((w.size() - start) % 8)
    w.put<uint8_t>(0); // DW_CFA_nop
  w.patch32(start, static_cast<uint32_t>(w.size() - start - 4));
}

} // namespace jitsym
