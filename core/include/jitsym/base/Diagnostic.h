// A problem found in an input: which file, where, and what is wrong.
#pragma once

#include <cstdint>
#include <string>

namespace jitsym {

struct Diagnostic {
  std::string file;     // the input's name as the user gave it
  uint64_t line = 0;    // 1-based line for text inputs, 0 when unknown
  std::string message;  // what is wrong, starting in lower case

  // "perf-4242.map:17: malformed size field 'zz'"
  std::string str() const {
    if (line == 0)
      return file + ": " + message;
    return file + ":" + std::to_string(line) + ": " + message;
  }
};

} // namespace jitsym
