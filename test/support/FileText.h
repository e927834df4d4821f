// A whole file's bytes, for tests that read back what a writer left.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace jitsym::test {

// Empty if the file cannot be read.
inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

} // namespace jitsym::test
