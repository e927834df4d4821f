// "0x1f": how addresses and sizes appear in jitsym's messages and output.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace jitsym {

inline std::string hexText(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace jitsym
