#!/bin/sh
# sanitized-host.sh PROGRAM [ARGS...]: runs a program that is not instrumented
# (lldb, lldb-dap, python3 with LLDB's module, java) but loads jitsym's
# sanitized libraries (the plugin, the JVMTI agent), in a build with
# JITSYM_SANITIZE=ON. lit's config sets the variables it reads; the options
# and their reasons are in sanitized_format.py.
#
# The sanitizer runtime has to be in such a process before any other library:
# it is preloaded, with test/support/SanitizedHost.c, which puts LD_PRELOAD back
# as it was once the program has started, so what it starts (lldb-server, the
# debuggee, node) runs without the runtime, as it would for a user. What it
# starts keeps the host's options: an instrumented debuggee (apijit) cannot
# look for leaks at exit under ptrace.
export JITSYM_OUTER_LD_PRELOAD="${LD_PRELOAD-}"
export LD_PRELOAD="${JITSYM_SANITIZER_PRELOAD}${LD_PRELOAD:+:$LD_PRELOAD}"
options="$JITSYM_SANITIZER_HOST_OPTIONS"
case "${1##*/}" in
  java) options="$options:$JITSYM_SANITIZER_JVM_OPTIONS" ;;
esac
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}$options"
exec "$@"
