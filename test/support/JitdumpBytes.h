// Jitdump bytes built in memory from the format's layouts, in this machine's
// byte order, for unit tests and benchmarks (lit tests use
// test/scripts/mkjitdump.py).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "jitsym/formats/JitdumpParser.h"

namespace jitsym::test {

template <class T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// The file header of an x86-64 process 4242.
inline std::string jitdumpHeader() {
  jitheader h{};
  h.magic = kJitdumpMagic;
  h.version = kJitdumpVersion;
  h.total_size = sizeof h;
  h.elf_mach = 62;
  h.pid = 4242;
  h.timestamp = 1;
  std::string out;
  put(out, h);
  return out;
}

inline void appendRecord(std::string &out, JitdumpRecordId id, const std::string &body) {
  put(out, jr_prefix{static_cast<uint32_t>(id), static_cast<uint32_t>(sizeof(jr_prefix) + body.size()),
                     7});
  out += body;
}

// A CODE_LOAD with `size` bytes of code (0xcc).
inline void appendCodeLoad(std::string &out, uint64_t address, uint64_t size,
                           const std::string &name, uint64_t index = 0) {
  jr_code_load load{};
  load.p = {static_cast<uint32_t>(JitdumpRecordId::CodeLoad),
            static_cast<uint32_t>(sizeof load + name.size() + 1 + size), 7};
  load.pid = load.tid = 4242;
  load.vma = load.code_addr = address;
  load.code_size = size;
  load.code_index = index;
  put(out, load);
  out += name;
  out += '\0';
  out.append(size, '\xcc');
}

} // namespace jitsym::test
