// Parsing jit-sync's arguments.
#include "CommandOptions.h"

#include <map>

namespace jitsym::plugin {
namespace {

using Action = CommandOptions::Action;

struct OptionSpec {
  const char *name, *shortName;
  enum Kind { Path, OnOff, Flag } kind;
  Action action; // Sync for the options of a sync
};

const OptionSpec kOptions[] = {
    {"--map", "-m", OptionSpec::Path, Action::Sync},
    {"--jitdump", "-j", OptionSpec::Path, Action::Sync},
    {"--dir", "-d", OptionSpec::Path, Action::Sync},
    {"--export", "-e", OptionSpec::Path, Action::Sync},
    {"--force", "-f", OptionSpec::Flag, Action::Sync},
    {"--on-stop", nullptr, OptionSpec::Flag, Action::Sync},
    {"--status", "-s", OptionSpec::Flag, Action::Status},
    {"--clear", "-c", OptionSpec::Flag, Action::Clear},
    {"--auto", "-a", OptionSpec::OnOff, Action::Auto},
    {"--watch-compiles", "-w", OptionSpec::OnOff, Action::WatchCompiles},
    {"--jvm-signals", nullptr, OptionSpec::OnOff, Action::JvmSignals},
    {"--portable", nullptr, OptionSpec::OnOff, Action::Portable},
    {"--help", "-h", OptionSpec::Flag, Action::Help},
};

const OptionSpec *findOption(const std::string &arg) {
  for (const OptionSpec &spec : kOptions)
    if (arg == spec.name || (spec.shortName && arg == spec.shortName))
      return &spec;
  return nullptr;
}

} // namespace

std::optional<CommandOptions> parseCommandOptions(const std::vector<std::string> &args,
                                                  std::string &error) {
  CommandOptions options;
  const OptionSpec *actionOption = nullptr; // the option that chose a non-sync action
  const OptionSpec *syncOption = nullptr;   // the first option of a sync
  std::map<std::string, bool> seen;
  for (size_t i = 0; i < args.size(); ++i) {
    const OptionSpec *spec = findOption(args[i]);
    if (!spec) {
      error = "unknown option '" + args[i] + "'; see 'jit-sync --help'";
      return std::nullopt;
    }
    if (seen[spec->name]) {
      error = std::string(spec->name) + " is given twice";
      return std::nullopt;
    }
    seen[spec->name] = true;
    std::string value;
    if (spec->kind != OptionSpec::Flag) {
      if (i + 1 >= args.size()) {
        error = std::string(spec->name) +
                (spec->kind == OptionSpec::Path ? " needs a path" : " needs 'on' or 'off'");
        return std::nullopt;
      }
      value = args[++i];
    }
    // One action per command: a sync's options, or one other action alone.
    if (spec->action != Action::Sync) {
      if (actionOption || syncOption) {
        error = std::string(actionOption ? actionOption->name : syncOption->name) + " and " +
                spec->name + " cannot be used together";
        return std::nullopt;
      }
      actionOption = spec;
      options.action = spec->action;
    } else {
      if (actionOption) {
        error = std::string(actionOption->name) + " and " + spec->name +
                " cannot be used together";
        return std::nullopt;
      }
      if (!syncOption)
        syncOption = spec;
    }
    const std::string name = spec->name;
    switch (spec->kind) {
    case OptionSpec::Path:
      if (value.empty()) {
        error = name + " needs a path, not an empty string";
        return std::nullopt;
      }
      (name == "--map"       ? options.sync.mapPath
       : name == "--jitdump" ? options.sync.jitdumpPath
       : name == "--dir"     ? options.sync.snapshotDir
                             : options.exportDir) = value;
      break;
    case OptionSpec::OnOff:
      if (value != "on" && value != "off") {
        error = std::string(spec->name) + " takes 'on' or 'off', not '" + value + "'";
        return std::nullopt;
      }
      options.on = value == "on";
      break;
    case OptionSpec::Flag:
      options.sync.force |= name == "--force";
      options.onStop |= name == "--on-stop";
      break;
    }
  }
  return options;
}

const char *const kJitSyncHelp = "Load JIT symbols (and source lines, unwind tables) from the process's perf map and "
                    "jitdump into LLDB and keep them current.";
const char *const kJitSyncSyntax =
    "jit-sync [--map PATH] [--jitdump PATH] [--dir SNAPSHOT] [--force] [--export DIR]\n"
    "jit-sync --auto on|off\n"
    "jit-sync --watch-compiles on|off\n"
    "jit-sync --jvm-signals on|off\n"
    "jit-sync --portable on|off\n"
    "jit-sync --status\n"
    "jit-sync --clear\n"
    "jit-sync --help\n"
    "\n"
    "With no option, reads what the runtime appended since the last sync to\n"
    "the perf map of the selected target's process (found at\n"
    "/proc/PID/root/tmp/perf-NSPID.map, /tmp/perf-PID.map or the Android\n"
    "locations) and to its jitdump (the file jit-PID.dump the process mapped\n"
    "executable, as perf finds it; records still in the process's stdio buffer\n"
    "are read from its memory), and updates the target's JIT modules, then\n"
    "prints one line: sources, symbols, regions, what is new, time taken.\n"
    "Code both files announce is named by the jitdump, which also gives\n"
    "source lines (image lookup, bt, breakpoint set -f FILE -l LINE) and\n"
    "unwind tables (exact backtraces from any instruction of such code).\n"
    "\n"
    "  --map PATH      follow this perf map instead (renamed files, core files)\n"
    "  --jitdump PATH  follow this jitdump instead\n"
    "  --dir SNAPSHOT  follow the files a 'jitsym snapshot' saved\n"
    "  --export DIR    after the sync, write the JIT symbols as files another\n"
    "               session loads: 'command source DIR/load.lldb', or per region\n"
    "               'target symbols add' of its JSON file after its object\n"
    "\n"
    "A remote target (platform select remote-linux/remote-android, platform\n"
    "connect) is synced the same way: the files are looked for and read on\n"
    "the remote side, through the platform connection (its file API, its shell\n"
    "for binary bytes, else whole-file downloads), copying only what was\n"
    "appended since the last sync; /data/data/PKG and /data/local/tmp are\n"
    "tried as on Android, and --map and --jitdump name remote paths.\n"
    "\n"
    "A core file (lldb -c CORE) is synced the same way: the JIT memory is\n"
    "taken from the core's own memory map (an ELF core's program headers and\n"
    "NT_FILE note), and files that do not match the core are refused. With\n"
    "neither --map nor --jitdump, a core uses the jitdump it had mapped if the\n"
    "file is still there, and /tmp/perf-PID.map if written before the core.\n"
    "  --force      trust files not owned by the process's user or root\n"
    "  --auto on|off  sync at every stop (default on, for every target)\n"
    "  --watch-compiles on|off  while a breakpoint waits for JIT code or sits\n"
    "               in it, stop briefly where code is announced (libjitsym-writer's\n"
    "               jitsym_code_announced, and each write(2) outside a JVM) so the\n"
    "               breakpoint resolves, or moves to code compiled again, before\n"
    "               the code runs (default on; about 1.2 ms a stop)\n"
    "  --jvm-signals on|off  when the target is a JVM, pass the signals HotSpot\n"
    "               raises itself (SIGSEGV SIGBUS SIGILL SIGFPE SIGUSR2) without\n"
    "               stopping, at launch or at the first stop after an attach,\n"
    "               unless you set the handling of one of them (default on)\n"
    "  --portable on|off  reach a process of this machine through LLDB's SB API\n"
    "               only (its memory regions, files opened as files), as on a\n"
    "               platform without /proc: no stdio buffer is read and no\n"
    "               write(2) watched (default off; on with JITSYM_PORTABLE=1)\n"
    "  --status     show what is being followed for the selected target\n"
    "  --clear      remove this target's JIT modules and forget the files\n"
    "  --help       show this help\n"
    "\n"
    "Each command does one thing: a sync (with --map, --jitdump, --dir,\n"
    "--force, --export), or one of --status, --clear, --auto,\n"
    "--watch-compiles, --jvm-signals, --portable, --help; short forms: -m -j -d -e -f\n"
    "-s -c -a -w -h.\n"
    "\n"
    "Sync at every stop runs as the stop hook '" "jit-sync --on-stop" "' and\n"
    "prints only problems.";

} // namespace jitsym::plugin
