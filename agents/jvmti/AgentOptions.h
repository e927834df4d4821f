// The agent's option string (-agentpath:libjitsym-jvmti.so=OPTIONS, or the
// argument after the path in `jcmd PID JVMTI.agent_load`): comma-separated
// tokens, each matched exactly.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jitsym::jvmti {

enum class NameStyle {
  HotSpot, // "long Hot.work(int)", as HotSpot's own perf map prints it
  Jvm,     // "Hot.work(I)J": the class's internal name and the method descriptor
};

struct AgentOptions {
  std::string directory;      // where jit-PID.dump goes; empty: $JITDUMPDIR, else /tmp
  bool perfMap = false;       // also append to /tmp/perf-PID.map
  NameStyle names = NameStyle::HotSpot;
  bool tier = false;          // append the compilation tier: " [tier 4]"
  bool lines = true;          // CODE_DEBUG_INFO line tables
  bool quiet = false;         // no line on stderr saying where the dump goes
  bool help = false;          // print kAgentOptionsHelp and refuse to start
};

// The text `help` prints, and that a bad option's message ends with.
extern const char *const kAgentOptionsHelp;

// nullopt and `error` set when a token is unknown or a value is bad.
std::optional<AgentOptions> parseAgentOptions(std::string_view text, std::string &error);

} // namespace jitsym::jvmti
