// Two-way fork/join for the few steps of a large load that split cleanly (sorting
// and parsing a million lines); the machines we target have at least two cores.
#pragma once

#include <cstddef>
#include <system_error>
#include <thread>

namespace jitsym {

// Runs `first` on the calling thread and `second` on a helper thread, returning
// when both are done; runs them one after the other if no thread can be started.
template <class First, class Second> void runBoth(First &&first, Second &&second) {
  std::thread helper;
  try {
    helper = std::thread(second);
  } catch (const std::system_error &) {
    first();
    second();
    return;
  }
  first();
  helper.join();
}

// Work below this many items is done on one thread: starting one costs tens of
// microseconds.
constexpr size_t kParallelThreshold = 1u << 16;

// Calls fn(half, begin, end) for the halves [0, n/2) and [n/2, n) of n items,
// on two threads; small work is one call fn(0, 0, n).
template <class Fn> void inHalves(size_t n, Fn &&fn) {
  if (n < 2 * kParallelThreshold) {
    fn(0u, size_t(0), n);
    return;
  }
  runBoth([&] { fn(0u, size_t(0), n / 2); }, [&] { fn(1u, n / 2, n); });
}

} // namespace jitsym
