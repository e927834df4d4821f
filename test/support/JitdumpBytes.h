// Jitdump bytes built in memory, in this machine's byte order, for unit tests
// and benchmarks (lit tests use test/scripts/mkjitdump.py).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "jitsym/JitdumpParser.h"

namespace jitsym::test {

template <class T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// The 40-byte file header of an x86-64 process 4242.
inline std::string jitdumpHeader() {
  std::string h;
  for (uint32_t v : {kJitdumpMagic, 1u, 40u, 62u, 0u, 4242u})
    put(h, v);
  put<uint64_t>(h, 1); // timestamp
  put<uint64_t>(h, 0); // flags
  return h;
}

inline void appendRecord(std::string &out, JitdumpRecordId id, const std::string &body) {
  put<uint32_t>(out, static_cast<uint32_t>(id));
  put<uint32_t>(out, static_cast<uint32_t>(16 + body.size()));
  put<uint64_t>(out, 7); // timestamp
  out += body;
}

// A CODE_LOAD with `size` bytes of code (0xcc).
inline void appendCodeLoad(std::string &out, uint64_t address, uint64_t size,
                           const std::string &name, uint64_t index = 0) {
  std::string body;
  put<uint32_t>(body, 4242);
  put<uint32_t>(body, 4242);
  for (uint64_t v : {address, address, size, index})
    put(body, v);
  body += name;
  body += '\0';
  body.append(size, '\xcc');
  appendRecord(out, JitdumpRecordId::CodeLoad, body);
}

} // namespace jitsym::test
