// Parsing jit-sync's arguments, and its help, from one table of options.
#include "CommandOptions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace jitsym::plugin {
namespace {

using Action = CommandOptions::Action;

struct OptionSpec {
  const char *name, *shortName; // shortName: nullptr for the stop hook's own option
  enum Kind { Path, Boolean, Flag } kind;
  Action action;       // Sync for the options of a sync
  const char *argName; // in the help: <path>, <dir>, ...
  const char *help;    // nullptr: not shown (--on-stop)
};

const OptionSpec kOptions[] = {
    {"--map", "-m", OptionSpec::Path, Action::Sync, "path",
     "Follow this perf map instead of the process's own (renamed files, core files)."},
    {"--jitdump", "-j", OptionSpec::Path, Action::Sync, "path",
     "Follow this jitdump instead of the one the process mapped."},
    {"--dir", "-d", OptionSpec::Path, Action::Sync, "snapshot-dir",
     "Follow the files a 'jitsym snapshot' saved."},
    {"--force", "-f", OptionSpec::Flag, Action::Sync, nullptr,
     "Trust files not owned by the process's user or root."},
    {"--export", "-e", OptionSpec::Path, Action::Sync, "dir",
     "After the sync, write the JIT symbols as files another session loads: 'command "
     "source DIR/load.lldb', or per region 'target symbols add' of its JSON file after "
     "its object."},
    {"--on-stop", nullptr, OptionSpec::Flag, Action::Sync, nullptr, nullptr},
    {"--auto", "-a", OptionSpec::Boolean, Action::Auto, "boolean",
     "Sync at every stop (default on, for every target)."},
    {"--watch-compiles", "-w", OptionSpec::Boolean, Action::WatchCompiles, "boolean",
     "While a breakpoint waits for JIT code or sits in it, stop briefly where code is "
     "announced (libjitsym-writer's jitsym_code_announced, and each write(2) outside a "
     "JVM) so the breakpoint resolves, or moves to code compiled again, before the code "
     "runs (default on; about 1.2 ms a stop)."},
    {"--filter-writes", "-F", OptionSpec::Boolean, Action::FilterWrites, "boolean",
     "Where a runtime announces its code with write(2), fwrite or fprintf (V8, BEAM, "
     "Mono, CPython), preload jitsym's filter (libjitsym-watch.so) at `process launch` "
     "and `run`: it reads those writes and stops the process only for code a breakpoint "
     "waits for or sits in, instead of at every write (default on; off with "
     "JITSYM_FILTER_WRITES=0)."},
    {"--jvm-signals", "-J", OptionSpec::Boolean, Action::JvmSignals, "boolean",
     "When the target is a JVM, pass the signals HotSpot raises itself (SIGSEGV SIGBUS "
     "SIGILL SIGFPE SIGUSR2) without stopping, at launch or at the first stop after an "
     "attach, unless you set the handling of one of them (default on)."},
    {"--portable", "-p", OptionSpec::Boolean, Action::Portable, "boolean",
     "Reach a process of this machine through LLDB's SB API only (its memory regions, "
     "files opened as files), as on a platform without /proc: no stdio buffer is read "
     "and no write(2) watched (default off; on with JITSYM_PORTABLE=1)."},
    {"--status", "-s", OptionSpec::Flag, Action::Status, nullptr,
     "Show what is being followed for the selected target."},
    {"--clear", "-c", OptionSpec::Flag, Action::Clear, nullptr,
     "Remove this target's JIT modules and forget the files."},
    {"--help", "-h", OptionSpec::Flag, Action::Help, nullptr, "Show this help."},
};

const OptionSpec *findOption(const std::string &arg) {
  for (const OptionSpec &spec : kOptions)
    if (arg == spec.name || (spec.shortName && arg == spec.shortName))
      return &spec;
  return nullptr;
}

// What a PATH option's value goes to.
std::optional<std::string> &pathField(CommandOptions &options, const std::string &name) {
  if (name == "--map")
    return options.sync.mapPath;
  if (name == "--jitdump")
    return options.sync.jitdumpPath;
  if (name == "--dir")
    return options.sync.snapshotDir;
  return options.exportDir;
}

} // namespace

std::optional<bool> parseLldbBoolean(const std::string &word) {
  std::string lower(word);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower == "on" || lower == "true" || lower == "yes" || lower == "1")
    return true;
  if (lower == "off" || lower == "false" || lower == "no" || lower == "0")
    return false;
  return std::nullopt;
}

std::optional<CommandOptions> parseCommandOptions(const std::vector<std::string> &args,
                                                  std::string &error) {
  CommandOptions options;
  const OptionSpec *actionOption = nullptr; // the option that chose a non-sync action
  const OptionSpec *syncOption = nullptr;   // the first option of a sync
  std::map<std::string, bool> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    // --name=value, as LLDB's own options take it.
    std::string word = args[i];
    std::optional<std::string> attached;
    if (word.rfind("--", 0) == 0 && word.find('=') != std::string::npos) {
      attached = word.substr(word.find('=') + 1);
      word.resize(word.find('='));
    }
    const OptionSpec *spec = findOption(word);
    if (!spec) {
      error = "unknown option '" + word + "'; see 'jit-sync --help'";
      return std::nullopt;
    }
    const std::string name = spec->name;
    if (seen[name]) {
      error = name + " is given twice";
      return std::nullopt;
    }
    seen[name] = true;
    std::string value;
    if (spec->kind == OptionSpec::Flag) {
      if (attached) {
        error = name + " takes no value";
        return std::nullopt;
      }
    } else if (attached) {
      value = *attached;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      error = name + (spec->kind == OptionSpec::Path ? " needs a path"
                                                      : " needs on or off (or true/false, yes/no, 1/0)");
      return std::nullopt;
    }
    // One action per command: a sync's options, or one other action alone.
    if (spec->action != Action::Sync) {
      if (actionOption || syncOption) {
        error = std::string(actionOption ? actionOption->name : syncOption->name) + " and " +
                name + " cannot be used together";
        return std::nullopt;
      }
      actionOption = spec;
      options.action = spec->action;
    } else {
      if (actionOption) {
        error = std::string(actionOption->name) + " and " + name + " cannot be used together";
        return std::nullopt;
      }
      if (!syncOption)
        syncOption = spec;
    }
    switch (spec->kind) {
    case OptionSpec::Path:
      if (value.empty()) {
        error = name + " needs a path, not an empty string";
        return std::nullopt;
      }
      pathField(options, name) = value;
      break;
    case OptionSpec::Boolean: {
      std::optional<bool> on = parseLldbBoolean(value);
      if (!on) {
        error = name + " takes on or off (or true/false, yes/no, 1/0), not '" + value + "'";
        return std::nullopt;
      }
      options.on = *on;
      break;
    }
    case OptionSpec::Flag:
      options.sync.force |= name == "--force";
      options.onStop |= name == "--on-stop";
      break;
    }
  }
  return options;
}

namespace {

// `text` wrapped to 80 columns, each line indented by `indent` spaces.
std::string wrapped(const std::string &text, size_t indent) {
  std::istringstream words(text);
  std::string out, line, word;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > 80) {
      out += std::string(indent, ' ') + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty())
    out += std::string(indent, ' ') + line + "\n";
  return out;
}

std::string usageOf(const OptionSpec &spec, bool shortForm) {
  std::string usage = shortForm ? spec.shortName : spec.name;
  if (spec.argName)
    usage += std::string(" <") + spec.argName + ">";
  return usage;
}

std::string buildSyntax() {
  std::string out = "jit-sync";
  for (const OptionSpec &spec : kOptions) // a sync's options on the first line
    if (spec.help && spec.action == Action::Sync)
      out += " [" + usageOf(spec, true) + "]";
  out += "\n";
  for (const OptionSpec &spec : kOptions)
    if (spec.help && spec.action != Action::Sync)
      out += "jit-sync " + usageOf(spec, true) + "\n";
  out += "\n";
  out += wrapped(
      "With no option, reads what the runtime appended since the last sync to the perf map "
      "of the selected target's process (found at /proc/PID/root/tmp/perf-NSPID.map, "
      "/tmp/perf-PID.map or the Android locations) and to its jitdump (the file "
      "jit-PID.dump the process mapped executable, as perf finds it; records still in the "
      "process's stdio buffer are read from its memory), and updates the target's JIT "
      "modules, then prints one line: sources, symbols, regions, what is new, time taken. "
      "Code both files announce is named by the jitdump, which also gives source lines "
      "(image lookup, bt, breakpoint set -f FILE -l LINE) and unwind tables (exact "
      "backtraces from any instruction of such code).",
      0);
  out += "\n";
  out += wrapped(
      "A remote target (platform select remote-linux/remote-android, platform connect) is "
      "synced the same way: the files are looked for and read on the remote side, through "
      "the platform connection (its file API, its shell for binary bytes, else whole-file "
      "downloads), copying only what was appended since the last sync; /data/data/PKG and "
      "/data/local/tmp are tried as on Android, and --map and --jitdump name remote paths.",
      0);
  out += "\n";
  out += wrapped(
      "A core file (lldb -c CORE) is synced the same way: the JIT memory is taken from the "
      "core's own memory map (an ELF core's program headers and NT_FILE note), and files "
      "that do not match the core are refused. With neither --map nor --jitdump, a core "
      "uses the jitdump it had mapped if the file is still there, and /tmp/perf-PID.map if "
      "written before the core.",
      0);
  out += "\nCommand Options Usage:\n";
  for (const OptionSpec &spec : kOptions) {
    if (!spec.help)
      continue;
    out += "       " + usageOf(spec, true) + " ( " + usageOf(spec, false) + " )\n";
    out += wrapped(spec.help, 12) + "\n";
  }
  out += wrapped(
      "Each command does one thing: a sync (with --map, --jitdump, --dir, --force, "
      "--export), or one of --auto, --watch-compiles, --jvm-signals, --portable, --status, "
      "--clear, --help. Values follow their option or an '=' (--map=PATH); <boolean> is "
      "on/off, true/false, yes/no or 1/0. Sync at every stop runs as the stop hook "
      "'jit-sync --on-stop' and prints only problems.",
      0);
  return out;
}

} // namespace

const char *jitSyncHelp() {
  return "Load JIT symbols (and source lines, unwind tables) from the process's perf map "
         "and jitdump into LLDB and keep them current.";
}

const char *jitSyncSyntax() {
  static const std::string syntax = buildSyntax();
  return syntax.c_str();
}

} // namespace jitsym::plugin
