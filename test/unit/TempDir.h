// A scratch directory for a unit test, removed with everything in it.
#pragma once

#include <cstdlib>
#include <string>

#include "jitsym/files/PrivateDir.h"

namespace jitsym::test {

class TempDir {
public:
  TempDir() {
    char pattern[] = "/tmp/jitsym-test-XXXXXX";
    if (const char *made = ::mkdtemp(pattern))
      path_ = made;
  }
  ~TempDir() {
    if (!path_.empty())
      removeTree(path_);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace jitsym::test
