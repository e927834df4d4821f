#include "CollectorOptions.h"

namespace jitsym::jitprofiling {

const char *const kCollectorOptionsHelp =
    "JITSYM_JITPROFILING options (comma-separated):\n"
    "  dir=PATH   write jit-PID.dump in PATH (default: $JITDUMPDIR, else /tmp)\n"
    "  perfmap    also append to /tmp/perf-PID.map (perf map; no unloads, no lines)\n"
    "  quiet      print nothing on standard error unless something fails\n"
    "  help       print this and collect nothing\n";

std::optional<CollectorOptions> parseCollectorOptions(std::string_view text, std::string &error) {
  CollectorOptions options;
  error.clear();
  for (size_t at = 0; at <= text.size() && !text.empty();) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view token = text.substr(at, comma - at);
    at = comma + 1;
    if (token == "perfmap")
      options.perfMap = true;
    else if (token == "quiet")
      options.quiet = true;
    else if (token == "help")
      options.help = true;
    else if (token.substr(0, 4) == "dir=" && token.size() > 4)
      options.directory = std::string(token.substr(4));
    else {
      error = (token.empty() ? std::string("empty option")
               : token == "dir=" ? std::string("dir= needs a path")
                                 : "unknown option '" + std::string(token) + "'") +
              " in '" + std::string(text) + "'";
      return std::nullopt;
    }
  }
  return options;
}

} // namespace jitsym::jitprofiling
