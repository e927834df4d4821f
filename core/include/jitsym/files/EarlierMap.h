// A perf map an earlier process with the same PID left behind, told apart
// from what the new process adds: it appends (CPython) or writes anew (V8,
// HotSpot agents, most JITs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace jitsym {

// A map an earlier process with the same PID left: its size and a digest of
// its bytes when it was found.
struct EarlierMap {
  std::string path;
  uint64_t bytes = 0;
  uint64_t digest = 0;
  int64_t modifiedNs = 0; // its modification time then
};

// The map at `path` as it is now, to be told apart from what is added later.
std::optional<EarlierMap> earlierMap(const std::string &path);

// Whether the file still begins with the earlier process's bytes: the new
// process appended to it (CPython does) rather than truncating and rewriting
// it (V8, HotSpot agents, most JITs do), so those bytes are not its own. A
// file written since that has the same size was rewritten, even with the same
// bytes (a deterministic program run again: an appender would have grown it).
// Rewritten the same and then grown cannot be told from appended.
bool stillBeginsWith(const EarlierMap &earlier);

} // namespace jitsym
