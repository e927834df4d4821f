// LLDB stops a JVM at the signals HotSpot raises on purpose (SIGSEGV for
// implicit null checks and safepoint polls, SIGBUS, SIGILL, SIGFPE, SIGUSR2):
// the JVM never gets past startup. When the target runs a JVM, jit-sync
// passes them to it without stopping, unless the user set the handling of
// any of them (or turned this off with --jvm-signals off).
#pragma once

#include <string>

#include "lldb/API/LLDB.h"

namespace jitsym::plugin {

// The signals and the `process handle` command that passes them.
extern const char *const kJvmSignals;

// Whether the target's executable is a JDK launcher (java, jshell...: a
// libjli.so or libjvm.so next to it in the JDK) or libjvm.so is among its
// modules (an embedding program, or a process that loaded it).
bool runsJvm(lldb::SBTarget &target);

// Before a launch: records the handling in the target (LLDB applies it to the
// process it creates) unless the user set one of these signals for the
// target. Returns a line for the user when it did, else an empty string.
std::string passJvmSignalsBeforeLaunch(lldb::SBDebugger &debugger, lldb::SBTarget &target);

// For a live process (attached, or launched before the plugin was loaded):
// changes the handling unless one of the signals no longer has LLDB's
// default (the user's choice). Returns a line for the user when it did.
std::string passJvmSignalsToProcess(lldb::SBDebugger &debugger, lldb::SBTarget &target);

} // namespace jitsym::plugin
