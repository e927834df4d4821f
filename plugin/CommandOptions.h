// The options of `jit-sync`, parsed from its arguments as a pure function: one
// action per command (a sync, or one of --status, --clear, --auto, ...), and
// options that belong to another action, or that come twice, are refused with
// a message instead of being ignored. Spelled as LLDB's own commands spell
// them: `-m PATH`, `--map PATH`, `--map=PATH`, and booleans as LLDB takes them
// (on/off, true/false, yes/no, 1/0). One table gives the parser and the help.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "TargetSync.h"

namespace jitsym::plugin {

struct CommandOptions {
  enum class Action {
    Sync, Status, Clear, Auto, WatchCompiles, FilterWrites, JvmSignals, Portable, Help
  };
  Action action = Action::Sync;
  SyncOptions sync;                     // --map, --jitdump, --dir, --force
  std::optional<std::string> exportDir; // --export, after the sync
  bool onStop = false;                  // the stop hook's own sync
  bool on = false;                      // the value of --auto, --watch-compiles, --jvm-signals, --portable
};

// Parses `args`; an error message (without the command's name) when they are
// not one consistent command.
std::optional<CommandOptions> parseCommandOptions(const std::vector<std::string> &args,
                                                  std::string &error);

// A boolean as LLDB's commands take one (case-insensitive on/off, true/false,
// yes/no, 1/0); nullopt for anything else.
std::optional<bool> parseLldbBoolean(const std::string &word);

// `help jit-sync` and `jit-sync --help`: the one-line help, and the syntax with
// every option, its short form and what it does, as LLDB's commands list theirs.
const char *jitSyncHelp();
const char *jitSyncSyntax();

} // namespace jitsym::plugin
