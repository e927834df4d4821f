// libFuzzer target: the watch list a producer reads out of its own memory,
// where a debugger wrote it (core formats/WatchList.h): whatever bytes are
// there, the producer's question reads only within the list's arrays.
//
// Input: the list's bytes (zero-padded to its size), then the announcement:
// 8 bytes of address, 8 of size, the rest its name.
// Checked invariants:
//  - no list (version 0) and `everything` want every announcement;
//  - a list the plugin encodes from names wants a name holding any of them,
//    and code over any of its addresses (the decision the stops rely on:
//    a wrong "no" would let code run before its breakpoint exists).
#include "jitsym/formats/WatchList.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  jitsym_watch_list list{};
  const size_t listBytes = std::min(size, sizeof list);
  std::memcpy(&list, data, listBytes);
  data += listBytes;
  size -= listBytes;
  uint64_t address = 0, length = 0;
  if (size >= 16) {
    std::memcpy(&address, data, 8);
    std::memcpy(&length, data + 8, 8);
    data += 16;
    size -= 16;
  }
  const std::string_view name(reinterpret_cast<const char *>(data), size);

  const bool wanted = watchListWants(list, name, address, length);
  if (list.version != JITSYM_WATCH_VERSION || list.everything)
    CHECK(wanted);

  // The same name, as the breakpoint a user typed, in a list the plugin makes.
  if (!name.empty() && name.find('\0') == std::string_view::npos) {
    const jitsym_watch_list typed = encodeWatchList({std::string(name)}, {address}, false);
    CHECK(watchListWants(typed, name, 0, 0));
    CHECK(length == 0 || watchListWants(typed, {}, address, length));
    const std::string decorated = "JS:*" + std::string(name) + " /app/x.js:1:2";
    CHECK(watchListWants(typed, decorated, 0, 0));
  }
  return 0;
}
