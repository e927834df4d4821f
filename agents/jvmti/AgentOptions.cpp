#include "AgentOptions.h"

namespace jitsym::jvmti {

const char *const kAgentOptionsHelp =
    "options (comma-separated):\n"
    "  dir=PATH        write jit-PID.dump in PATH (default: $JITDUMPDIR, else /tmp)\n"
    "  perfmap         also append to /tmp/perf-PID.map (perf map; no unloads)\n"
    "  names=hotspot   name methods as HotSpot does: long Hot.work(int) (default)\n"
    "  names=jvm       name methods by JVM signature: Hot.work(I)J\n"
    "  tier            append the compilation tier to compiled methods: [tier 4]\n"
    "  nolines         leave out line tables\n"
    "  quiet           print nothing on standard error unless something fails\n"
    "  help            print this and stop the JVM\n";

std::optional<AgentOptions> parseAgentOptions(std::string_view text, std::string &error) {
  AgentOptions options;
  error.clear();
  size_t at = 0;
  while (at <= text.size() && !text.empty()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view token = text.substr(at, comma - at);
    at = comma + 1;
    auto bad = [&](const std::string &why) {
      error = why + " in '" + std::string(text) + "'";
      return std::nullopt;
    };
    if (token == "perfmap")
      options.perfMap = true;
    else if (token == "tier")
      options.tier = true;
    else if (token == "nolines")
      options.lines = false;
    else if (token == "quiet")
      options.quiet = true;
    else if (token == "names=hotspot")
      options.names = NameStyle::HotSpot;
    else if (token == "names=jvm")
      options.names = NameStyle::Jvm;
    else if (token.substr(0, 4) == "dir=") {
      if (token.size() == 4)
        return bad("dir= needs a path");
      options.directory = std::string(token.substr(4));
    } else if (token == "help")
      options.help = true;
    else if (token.empty())
      return bad("empty option");
    else if (token.substr(0, 6) == "names=")
      return bad("unknown name style '" + std::string(token.substr(6)) + "' (hotspot or jvm)");
    else
      return bad("unknown option '" + std::string(token) + "'");
  }
  return options;
}

} // namespace jitsym::jvmti
