// Invariant checks for fuzz targets: a violated invariant aborts, which
// libFuzzer reports as a crash with the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace jitsym::fuzz {

[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr, "INVARIANT VIOLATED: %s\n", what);
  std::abort();
}

} // namespace jitsym::fuzz

#define CHECK(cond)                                                                \
  do {                                                                             \
    if (!(cond))                                                                   \
      ::jitsym::fuzz::fail(#cond);                                                 \
  } while (0)
