// The collector's options, from the environment variable JITSYM_JITPROFILING
// (the stub that loads the collector passes it nothing): comma-separated
// tokens, each matched exactly.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jitsym::jitprofiling {

struct CollectorOptions {
  std::string directory; // where jit-PID.dump goes; empty: $JITDUMPDIR, else /tmp
  bool perfMap = false;  // also append to /tmp/perf-PID.map
  bool quiet = false;    // no line on stderr saying where the dump goes
  bool help = false;     // print kCollectorOptionsHelp and collect nothing
};

extern const char *const kCollectorOptionsHelp;

// nullopt and `error` set when a token is unknown or a value is bad.
std::optional<CollectorOptions> parseCollectorOptions(std::string_view text, std::string &error);

} // namespace jitsym::jitprofiling
