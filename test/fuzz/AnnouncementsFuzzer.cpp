// libFuzzer target: the write filter's readers of what a runtime writes to its
// perf map and jitdump (core formats/AnnouncementScanner.h), inside the
// runtime's process, where a crash is the runtime's.
//
// Input: one byte (bit 0: a jitdump, else a perf map; the rest: where to cut
// the stream), then the stream. Checked invariants:
//  - a stream written in two pieces is wanted as when written whole, and
//    piece by piece in single bytes as well (the runtime chooses its calls);
//  - a jitdump resumed at the cut, from the stream before it, reads the rest
//    without reading outside what it was given.
#include "jitsym/formats/AnnouncementScanner.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <string_view>

using namespace jitsym;

namespace {

const jitsym_watch_list &list() {
  static const jitsym_watch_list watched = encodeWatchList({"leaf"}, {0x9000}, false);
  return watched;
}

template <typename Scanner> bool wholeWanted(std::string_view stream) {
  Scanner scanner;
  return scanner.add(stream, list());
}

template <typename Scanner> bool piecesWanted(std::string_view stream, size_t cut) {
  Scanner scanner;
  const bool first = scanner.add(stream.substr(0, cut), list());
  const bool second = scanner.add(stream.substr(cut), list());
  return first || second;
}

template <typename Scanner> bool bytesWanted(std::string_view stream) {
  Scanner scanner;
  bool wanted = false;
  for (size_t i = 0; i < stream.size(); ++i)
    wanted |= scanner.add(stream.substr(i, 1), list());
  return wanted;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const bool jitdump = data[0] & 1;
  const std::string_view stream(reinterpret_cast<const char *>(data + 1), size - 1);
  const size_t cut = stream.empty() ? 0 : (data[0] >> 1) * stream.size() / 128;
  if (jitdump) {
    const bool whole = wholeWanted<JitdumpScanner>(stream);
    CHECK(piecesWanted<JitdumpScanner>(stream, cut) == whole);
    CHECK(bytesWanted<JitdumpScanner>(stream) == whole);
    JitdumpScanner resumed;
    const std::string_view before = stream.substr(0, cut);
    resumed.resumeAt(cut, [&](uint64_t offset, size_t length, char *out) {
      CHECK(offset <= before.size() && length <= before.size() - offset);
      std::memcpy(out, before.data() + offset, length);
      return true;
    });
    resumed.add(stream.substr(cut), list());
  } else {
    const bool whole = wholeWanted<PerfMapScanner>(stream);
    CHECK(piecesWanted<PerfMapScanner>(stream, cut) == whole);
    CHECK(bytesWanted<PerfMapScanner>(stream) == whole);
  }
  return 0;
}
