#!/usr/bin/python3
"""What a stop costs while a runtime keeps compiling: a busy process under
LLDB with jitsym, automatic sync off (`jit-sync --auto off`), is stopped every
INTERVAL ms with SBProcess::Stop() (async mode, as an IDE's pause does); at
each stop an explicit `jit-sync` is timed (the command's wall time, and the ms
it reports in its one-line summary, with the symbols it says are new), then
the process resumes. Runs until the workload ends or STOPS stops.

  jvm   javac (HotSpot 17) compiling FILES generated Java sources, with the
        JVMTI agent (jitdump, with line tables; `--agent-options perfmap`
        adds its perf map, `nolines` drops the lines)
  tsc   TypeScript 5's compiler (npm's typescript@5, installed into
        BUILD/runtimes/typescript5 at the first run) on node 20 type-checking
        and emitting TS_FILES generated modules, --perf-basic-prof: a busy Node
        that is a real program
  node  node 20 generating and calling new functions in a loop for SECONDS
        (`new Function`, each called until V8 compiles it), with
        --perf-basic-prof --interpreted-frames-native-stack (`--node-prof
        jitdump` for --perf-prof, `both` for the two)

Printed per runtime, one line: stops, percentiles of the jit-sync wall time
and of the time it reports (nearest rank: under 100 stops p99 is the max),
and new symbols per stop, over the stops where jit-sync found the runtime's
file (the stops before it wrote one are counted apart); the first sync
(everything since launch) is in the figures and also shown alone. The halt
(Stop() until the stopped event, LLDB's own) is printed beside them, and the
three slowest syncs with what they said.

usage: bench/stop_latency.py BUILD_DIR [--runtime jvm|node|tsc|both|all] [--stops N]
         [--interval MS] [--files N] [--ts-files N] [--seconds S] [--agent-options OPTS]
         [--node-prof basic|jitdump|both] [--jitsym-parent DIR] [--verbose]
         [--csv FILE]
(finds LLDB's Python module with `lldb -P` and sets LLDB_DEBUGSERVER_PATH if
they are not given: $LLDB or /usr/lib/llvm-22/bin/lldb)
"""
import argparse
import math
import os
import pwd
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from busy_workloads import NODE_SCRIPT, java_sources, typescript_compiler, typescript_sources

LLDB = os.environ.get("LLDB", "/usr/lib/llvm-22/bin/lldb")
LLDB_PYTHON = subprocess.run([LLDB, "-P"], stdout=subprocess.PIPE, text=True,
                             check=True).stdout.strip()
try:
    import lldb
except ImportError:
    sys.path.insert(0, LLDB_PYTHON)
    import lldb
os.environ.setdefault("LLDB_DEBUGSERVER_PATH",
                      os.path.join(os.path.dirname(LLDB), "lldb-server"))

# "jit-sync: SOURCE: 1234 symbols in 2 regions, 56 new[, 3 replaced][, ...], 4.2 ms[; note]"
SUMMARY = re.compile(r"jit-sync: .*? (\d+) symbols? in \d+ regions?, (\d+) new(?:, [^;]*?)?, "
                     r"([0-9.]+) ms")


def filesystem(path):
    """`path`'s file system type as /proc/mounts gives it (the plugin writes
    and removes files at each sync: ext4 without a journal makes each creation
    slower the more files were removed in the last seconds)."""
    best, kind = "", "?"
    path = os.path.realpath(path)
    with open("/proc/mounts") as mounts:
        for line in mounts:
            fields = line.split()
            point = fields[1]
            if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) > len(best):
                best, kind = point, fields[2]
    return "%s (%s)" % (kind, path)


def percentile(values, p):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


def spread(values, unit="ms"):
    if not values:
        return "none"
    form = "%.1f" if unit == "ms" else "%d"
    return "p50 %s p90 %s p99 %s max %s" % tuple(
        form % v for v in (percentile(values, 50), percentile(values, 90),
                           percentile(values, 99), max(values)))


class Session:
    def __init__(self, plugin):
        self.debugger = lldb.SBDebugger.Create(False)
        self.quiet = open(os.devnull, "w")  # LLDB's and the plugin's messages
        self.debugger.SetOutputFileHandle(self.quiet, True)
        self.debugger.SetErrorFileHandle(self.quiet, True)
        self.interpreter = self.debugger.GetCommandInterpreter()
        self.listener = self.debugger.GetListener()
        self.event = lldb.SBEvent()
        out = self.run("plugin load " + plugin)
        if "error" in out:
            sys.exit("stop_latency.py: " + out.strip())
        self.run("jit-sync --auto off")  # the benchmark calls jit-sync itself

    def run(self, command):
        result = lldb.SBCommandReturnObject()
        self.interpreter.HandleCommand(command, result)
        return (result.GetOutput() or "") + (result.GetError() or "")

    def wait_for(self, states, timeout=60):
        """Takes the debugger's events until the process reaches one of
        `states` (a stop that LLDB restarted at once is not one); returns the
        state, or None after `timeout` s. This script is the only listener."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if not self.listener.WaitForEvent(1, self.event):
                continue
            if not lldb.SBProcess.EventIsProcessEvent(self.event):
                continue
            state = lldb.SBProcess.GetStateFromEvent(self.event)
            if state == lldb.eStateStopped and lldb.SBProcess.GetRestartedFromEvent(self.event):
                continue
            if state in states or state in (lldb.eStateExited, lldb.eStateDetached,
                                            lldb.eStateCrashed):
                return state
        return None

    def pending(self):
        """The last process state among events already queued, without waiting."""
        state = None
        while self.listener.GetNextEvent(self.event):
            if lldb.SBProcess.EventIsProcessEvent(self.event):
                state = lldb.SBProcess.GetStateFromEvent(self.event)
        return state


def measure(session, argv, work, args, label):
    """Launches argv[0] with argv[1:] under LLDB, stops it every interval,
    times jit-sync; returns a dict of lists and the process's PID."""
    debugger = session.debugger
    target = debugger.CreateTarget(argv[0])
    if not target.IsValid():
        sys.exit("stop_latency.py: cannot create a target for " + argv[0])
    debugger.SetAsync(True)
    info = lldb.SBLaunchInfo(argv[1:])
    info.SetWorkingDirectory(work)
    info.AddOpenFileAction(0, "/dev/null", True, False)
    info.AddOpenFileAction(1, os.path.join(work, label + ".out"), False, True)
    info.AddOpenFileAction(2, os.path.join(work, label + ".err"), False, True)
    info.SetListener(session.listener)
    error = lldb.SBError()
    process = target.Launch(info, error)
    if not error.Success():
        sys.exit("stop_latency.py: launch failed: " + error.GetCString())
    pid = process.GetProcessID()
    if session.wait_for((lldb.eStateRunning,)) != lldb.eStateRunning:
        sys.exit("stop_latency.py: %s never ran" % argv[0])
    stops = []  # per stop: halt ms, jit-sync wall ms, ms reported, new symbols, its output
    exit_state = None
    while len(stops) < args.stops:
        time.sleep(args.interval / 1000)
        if session.pending() in (lldb.eStateExited, lldb.eStateCrashed, lldb.eStateDetached):
            exit_state = "exited"
            break
        started = time.perf_counter()
        process.Stop()
        state = session.wait_for((lldb.eStateStopped,))
        halted = time.perf_counter()
        if state != lldb.eStateStopped:
            exit_state = "exited" if state == lldb.eStateExited else "state %s" % state
            break
        out = session.run("jit-sync")
        done = time.perf_counter()
        summary = SUMMARY.search(out)
        stops.append({"halt": (halted - started) * 1000, "wall": (done - halted) * 1000,
                      "reported": float(summary.group(3)) if summary else None,
                      "new": int(summary.group(2)) if summary else None,
                      "symbols": int(summary.group(1)) if summary else None,
                      "line": out.strip().replace("\n", " | ")})
        if args.verbose:
            print("  %s stop %d: halt %.1f ms, jit-sync %.1f ms | %s" % (
                label, len(stops), stops[-1]["halt"], stops[-1]["wall"], stops[-1]["line"]))
            sys.stdout.flush()
        process.Continue()
        state = session.wait_for((lldb.eStateRunning,))
        if state != lldb.eStateRunning:
            exit_state = "exited"
            break
    status = session.run("jit-sync --status")
    if exit_state is None:  # N stops taken: the rest of the run is not needed
        process.Kill()
        session.wait_for((lldb.eStateExited,), 10)
        exit_state = "killed after %d stops" % args.stops
    elif process.GetState() == lldb.eStateExited:
        # -1: LLDB did not get the status (an exit met by a Stop(), seen here
        # with javac whose classes were all written)
        exit_state = "exited with status %d%s" % (
            process.GetExitStatus(),
            " (%s)" % process.GetExitDescription() if process.GetExitDescription() else "")
        errors = open(os.path.join(work, label + ".err")).read().strip()
        if process.GetExitStatus() != 0 and errors:
            exit_state += ", stderr: " + errors.splitlines()[0][:100]
    debugger.SetAsync(False)
    debugger.DeleteTarget(target)
    return {"stops": stops, "end": exit_state, "status": status}, pid


def report(name, what, run):
    stops = run["stops"]
    synced = [s for s in stops if s["reported"] is not None]
    wall = [s["wall"] for s in synced]
    first = ("first sync %.1f ms (%d new, stop %d)"
             % (synced[0]["wall"], synced[0]["new"], stops.index(synced[0]) + 1)
             if synced else "no sync found symbols")
    print("%-4s %d stops, jit-sync wall ms %s; reported ms %s; new symbols/stop %s, %d in all;"
          " %s; halt (Stop() to stopped event) ms p50 %.1f max %.1f%s | %s, %s" % (
              name, len(stops), spread(wall), spread([s["reported"] for s in synced]),
              spread([s["new"] for s in synced], "count"),
              synced[-1]["symbols"] if synced else 0,
              first, statistics.median(s["halt"] for s in stops) if stops else 0,
              max((s["halt"] for s in stops), default=0),
              "; stops with no file to read yet: %d" % (len(stops) - len(synced))
              if len(stops) > len(synced) else "", what, run["end"]))
    for s in sorted(synced, key=lambda s: -s["wall"])[:3]:  # what the slowest said
        print("       slow: stop %d, %.1f ms: %s" % (stops.index(s) + 1, s["wall"], s["line"][:220]))
    syncs = re.search(r"syncs: .*", run["status"])
    if syncs:
        print("       jit-sync --status: " + syncs.group(0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("--runtime", choices=("jvm", "node", "tsc", "both", "all"),
                        default="both", help="both: jvm and node; all: the three")
    parser.add_argument("--stops", type=int, default=200, help="at most this many stops a run")
    parser.add_argument("--interval", type=float, default=300,
                        help="ms the process runs between a resume and the next stop")
    parser.add_argument("--files", type=int, default=300, help="Java sources javac compiles")
    parser.add_argument("--ts-files", type=int, default=2000, help="modules tsc compiles")
    parser.add_argument("--seconds", type=float, default=20, help="how long Node compiles")
    parser.add_argument("--agent-options", default="",
                        help="more options for the JVMTI agent, e.g. perfmap or nolines")
    parser.add_argument("--node-prof", choices=("basic", "jitdump", "both"), default="basic")
    parser.add_argument("--jitsym-parent", help="make JITSYM_DIR (the plugin's files) in this "
                        "directory instead of $XDG_RUNTIME_DIR or /dev/shm, as the plugin "
                        "does (/tmp: an ext4 here)")
    parser.add_argument("--verbose", action="store_true", help="print every stop")
    parser.add_argument("--csv", help="write every stop's figures to this file")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    plugin = os.path.join(build, "lib", "libjitsym-lldb.so")
    agent = os.path.join(build, "lib", "libjitsym-jvmti.so")

    work = tempfile.mkdtemp(prefix="jitsym-stop-latency-")
    # The plugin's files: this run's only (mkdtemp makes it 0700), where the
    # plugin puts them by default: $XDG_RUNTIME_DIR, else /dev/shm (memory).
    parent = args.jitsym_parent or os.environ.get("XDG_RUNTIME_DIR") or (
        "/dev/shm" if os.path.isdir("/dev/shm") else None)
    private = tempfile.mkdtemp(prefix="jitsym-stop-latency-dir-", dir=parent)
    private_parent = os.path.dirname(private)
    os.environ["JITSYM_DIR"] = private
    pids = []
    lldb.SBDebugger.Initialize()
    session = Session(plugin)
    results = []
    try:
        if args.runtime in ("jvm", "both", "all"):
            sources = java_sources(os.path.join(work, "src"), args.files)
            classes = os.path.join(work, "classes")
            os.mkdir(classes)
            options = "dir=%s,quiet%s" % (work, "," + args.agent_options
                                          if args.agent_options else "")
            argv = [shutil.which("javac"), "-J-agentpath:%s=%s" % (agent, options),
                    "-d", classes] + sources
            figures, pid = measure(session, argv, work, args, "jvm")
            pids.append(pid)
            compiled = len(os.listdir(os.path.join(classes, "gen"))) if os.path.isdir(
                os.path.join(classes, "gen")) else 0
            results.append(("jvm", "javac, %d files (%d classes written), agent %s"
                            % (args.files, compiled, options.replace(work, "WORK")), figures))
        if args.runtime in ("tsc", "all"):
            config = typescript_sources(os.path.join(work, "ts"), args.ts_files)
            session.run("process handle SIGUSR1 SIGPROF -s false -n false -p true")
            argv = [shutil.which("node"), "--perf-basic-prof", typescript_compiler(build),
                    "-p", config]
            figures, pid = measure(session, argv, work, args, "tsc")
            pids.append(pid)
            emitted = len(os.listdir(os.path.join(work, "ts", "out"))) if os.path.isdir(
                os.path.join(work, "ts", "out")) else 0
            results.append(("tsc", "typescript@5 on node 20 --perf-basic-prof, %d modules "
                            "(%d emitted)" % (args.ts_files, emitted), figures))
        if args.runtime in ("node", "both", "all"):
            script = os.path.join(work, "compile_loop.js")
            with open(script, "w") as f:
                f.write(NODE_SCRIPT)
            flags = {"basic": ["--perf-basic-prof", "--interpreted-frames-native-stack"],
                     "jitdump": ["--perf-prof", "--interpreted-frames-native-stack"],
                     "both": ["--perf-basic-prof", "--perf-prof",
                              "--interpreted-frames-native-stack"]}[args.node_prof]
            session.run("process handle SIGUSR1 SIGPROF -s false -n false -p true")
            argv = [shutil.which("node")] + flags + [script, str(args.seconds)]
            figures, pid = measure(session, argv, work, args, "node")
            pids.append(pid)
            made = re.search(r"functions made: \d+", open(os.path.join(work, "node.out")).read())
            results.append(("node", "%s, %g s%s" % (" ".join(flags), args.seconds,
                                                   ", " + made.group(0) if made else ""), figures))
    finally:
        lldb.SBDebugger.Destroy(session.debugger)
        for pid in pids:  # the runtimes' perf maps (their jitdumps are in `work`), and
            # HotSpot's perf data, left behind when the JVM is killed after N stops
            for path in ("/tmp/perf-%d.map" % pid, "/tmp/hsperfdata_%s/%d" % (
                    pwd.getpwuid(os.getuid()).pw_name, pid)):
                if os.path.exists(path):
                    os.unlink(path)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(private, ignore_errors=True)

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("runtime,stop,halt_ms,wall_ms,reported_ms,new,symbols\n")
            for name, _, run in results:
                for i, stop in enumerate(run["stops"]):
                    f.write("%s,%d,%.2f,%.2f,%s,%s,%s\n" % (
                        name, i + 1, stop["halt"], stop["wall"],
                        "" if stop["reported"] is None else stop["reported"],
                        "" if stop["new"] is None else stop["new"],
                        "" if stop["symbols"] is None else stop["symbols"]))
    print("stops every %g ms of running, jit-sync timed at each (--auto off), JITSYM_DIR on %s; "
          "ms, nearest-rank percentiles:" % (args.interval, filesystem(private_parent)))
    for name, what, figures in results:
        report(name, what, figures)
    print("rerun: LLDB_DEBUGSERVER_PATH=%s PYTHONPATH=%s /usr/bin/python3 %s" % (
        os.environ["LLDB_DEBUGSERVER_PATH"], LLDB_PYTHON,
        " ".join(shlex.quote(a) for a in [os.path.relpath(os.path.abspath(__file__))]
                 + sys.argv[1:])))


if __name__ == "__main__":
    main()
