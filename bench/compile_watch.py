#!/usr/bin/python3
"""What a breakpoint waiting for JIT code costs per compiled method: javac
(HotSpot compiling ~1500 methods as it starts) compiling bench/java/
Throughput.java under LLDB with jitsym and the JVMTI agent, without a
breakpoint and with one that waits for a method never compiled
(`breakpoint set -n NoSuch.never`): the agent calls jitsym_code_announced()
after each compiled method it writes (not after stubs), and the plugin stops
there, reads the jitdump and resumes.

Rounds alternate the two runs (this machine's speed drifts), each run is
compared with the run without a breakpoint of its own round; printed: the
medians, the paired ratio, the compiled methods the watch stopped at, and the
cost per announcement.

usage: bench/compile_watch.py BUILD_DIR [ROUNDS]
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import lldb
from quiet_debugger import quiet_debugger

HERE = os.path.dirname(os.path.abspath(__file__))


# A compiled Java method as the agent names it: "long Hot.work(int)" (stubs,
# written quietly, are named "Interpreter", "StubRoutines (1)", ...).
METHOD = re.compile(r'name "\S+ [\w$.<>]+\.[\w$<>]+\(.*\)"$')


def announcements(jitsym, work):
    """Compiled methods the agent wrote to its jitdumps in `work`: each one
    calls the announcement hook once."""
    count = 0
    for name in os.listdir(work):
        if name.startswith("jit-") and name.endswith(".dump"):
            out = subprocess.run([jitsym, "dump", os.path.join(work, name)],
                                 stdout=subprocess.PIPE, text=True, check=True).stdout
            count += sum(1 for line in out.splitlines()
                         if " CODE_LOAD " in line and METHOD.search(line))
            os.unlink(os.path.join(work, name))
    return count


def run_javac(plugin, agent, source, work, breakpoint):
    debugger, run = quiet_debugger()
    run("plugin load " + plugin)
    run("target create " + shutil.which("javac"))
    if breakpoint:
        run("breakpoint set -n NoSuch.never")
    started = time.monotonic()
    run("process launch -o /dev/null -e /dev/null -- -J-agentpath:%s=dir=%s,quiet -d %s %s"
        % (agent, work, work, source))
    target = debugger.GetSelectedTarget()
    process = target.GetProcess()
    while process.GetState() == lldb.eStateStopped:  # a stop shown despite the watch
        process.Continue()
    seconds = time.monotonic() - started
    if process.GetState() != lldb.eStateExited or process.GetExitStatus() != 0:
        sys.exit("compile_watch.py: javac did not exit cleanly: %s" % process)
    lldb.SBDebugger.Destroy(debugger)
    return seconds


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    plugin = os.path.join(build, "lib", "libjitsym-lldb.so")
    jitsym = os.path.join(build, "bin", "jitsym")
    agent = os.path.join(build, "lib", "libjitsym-jvmti.so")
    source = os.path.join(HERE, "java", "Throughput.java")
    work = tempfile.mkdtemp(prefix="jitsym-compile-watch-")
    private = None
    if "JITSYM_DIR" not in os.environ:  # the plugin's files, removed at the end
        private = tempfile.mkdtemp(prefix="jitsym-compile-watch-dir-")
        os.environ["JITSYM_DIR"] = private
    lldb.SBDebugger.Initialize()
    without, with_bp, ratios, stops = [], [], [], []
    for r in range(rounds):
        order = [False, True] if r % 2 == 0 else [True, False]
        times = {}
        for breakpoint in order:
            times[breakpoint] = run_javac(plugin, agent, source, work, breakpoint)
            loads = announcements(jitsym, work)
            if breakpoint:
                stops.append(loads)
        without.append(times[False])
        with_bp.append(times[True])
        ratios.append(times[True] / times[False])
    shutil.rmtree(work, ignore_errors=True)
    if private:
        shutil.rmtree(private, ignore_errors=True)
    base, waiting = statistics.median(without), statistics.median(with_bp)
    announced = statistics.median(stops)
    print("javac under LLDB with jitsym and the agent, %d rounds:" % rounds)
    print("  no breakpoint:                 median %.2f s" % base)
    print("  a breakpoint waiting for code: median %.2f s (paired ratio %.2fx)"
          % (waiting, statistics.median(ratios)))
    print("  compiled methods announced:    median %d" % announced)
    if announced:
        print("  cost per compiled method:      %.2f ms"
              % ((waiting - base) * 1000 / announced))


if __name__ == "__main__":
    main()
