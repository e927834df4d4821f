// The watch list a debugger writes and a producer reads (WatchList.h).
#include "jitsym/formats/WatchList.h"

#include <algorithm>
#include <cstring>

namespace jitsym {
namespace {

constexpr size_t kMaxAddresses = sizeof(jitsym_watch_list::addresses) / sizeof(uint64_t);

// `Leaf.leaf` -> `leaf`, `prog:leaf/1` -> `leaf/1`, `ns::f` -> `f`: the part of
// a name as users type it that every spelling of the runtime's keeps.
std::string_view lastComponent(std::string_view name) {
  const size_t cut = name.find_last_of(".:");
  if (cut == std::string_view::npos || cut + 1 == name.size())
    return name;
  return name.substr(cut + 1);
}

} // namespace

jitsym_watch_list encodeWatchList(const std::vector<std::string> &names,
                                  const std::vector<uint64_t> &addresses, bool everything) {
  jitsym_watch_list list{};
  list.version = JITSYM_WATCH_VERSION;
  list.everything = everything ? 1 : 0;
  for (const std::string &name : names) {
    const std::string_view part = lastComponent(name);
    if (part.empty())
      continue;
    if (list.nameBytes + part.size() + 1 > sizeof list.names) {
      list.everything = 1;
      break;
    }
    std::memcpy(list.names + list.nameBytes, part.data(), part.size());
    list.nameBytes += static_cast<uint32_t>(part.size() + 1); // and its NUL
  }
  if (addresses.size() > kMaxAddresses) {
    list.everything = 1;
  } else {
    std::copy(addresses.begin(), addresses.end(), list.addresses);
    std::sort(list.addresses, list.addresses + addresses.size());
    list.addressCount = static_cast<uint32_t>(addresses.size());
  }
  return list;
}

bool watchListWants(const jitsym_watch_list &list, std::string_view name, uint64_t address,
                    uint64_t size) {
  if (list.version != JITSYM_WATCH_VERSION || list.everything)
    return true; // no list (or one of another version): as without one
  const uint32_t count = std::min<uint32_t>(list.addressCount, kMaxAddresses);
  const uint64_t *first = std::lower_bound(list.addresses, list.addresses + count, address);
  if (first != list.addresses + count && *first - address < size)
    return true; // code again under a location
  const size_t bytes = std::min<size_t>(list.nameBytes, sizeof list.names);
  for (size_t at = 0; at < bytes;) {
    const void *end = std::memchr(list.names + at, '\0', bytes - at);
    const size_t length =
        end ? static_cast<size_t>(static_cast<const char *>(end) - (list.names + at)) : bytes - at;
    if (length > 0 && name.find(std::string_view(list.names + at, length)) != std::string_view::npos)
      return true;
    at += length + 1;
  }
  return false;
}

} // namespace jitsym
