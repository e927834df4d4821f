"""Debugs test/support/stressjit.c with jitsym's plugin and checks, at every
stop, every JIT symbol LLDB knows against what the names say (see stressjit.c):
nothing torn, lost, duplicated or misplaced. Prints one line per finding and a
summary the lit tests check.

usage: stress_session.py SCENARIO PLUGIN STRESSJIT [STRESSJIT ARG...]

scenarios:
  writers    the stop hook syncs at every stop while the writer goes on; at the
             last stop (the writer is done) LLDB must hold exactly what it wrote
  exit       a jit-sync of a large map is running when the process is killed
  interrupt  a jit-sync of a large map is interrupted; the next one goes on
  exec       the process execs a new program that appends to the old map
  pid-reuse  an earlier process with the same PID left its map; the new one
             appends to it after jitsym has seen it
  pid-reuse-rewrite
             the same, but the new one truncates the map and writes it anew
"""
import fcntl
import os
import re
import signal
import subprocess
import sys
import threading
import time

import lldb
from lldb_driver import Driver, jit_symbols

MAP_NAME = re.compile(r"^([a-z]+)(\d+)_(\d+)_([0-9a-f]+)$")
DUMP_NAME = re.compile(r"^d(\d+)_([0-9a-f]+)$")
SYMBOL_BYTES = 16


class Session(Driver):
    def __init__(self, plugin):
        super().__init__(plugin)
        self.private = os.environ["JITSYM_DIR"]

    def run(self, command, echo=False):
        text = super().run(command)
        if echo:
            print("(lldb) %s\n%s" % (command, text), end="")
        return text

    def jit_symbols(self, target):
        return jit_symbols(target)


def check(symbols):
    """Checks each name against its address; returns (map lines by generation,
    dump records, problems)."""
    lines, records, problems = {}, set(), []
    bases = set()
    for name, address, size in symbols:
        m = MAP_NAME.match(name or "")
        d = DUMP_NAME.match(name or "")
        if m:
            gen, n, named = int(m.group(2)), int(m.group(3)), int(m.group(4), 16)
            bases.add(named - n * SYMBOL_BYTES)
            seen = lines.setdefault((m.group(1), gen), set())
            if n in seen:
                problems.append("duplicated: %s" % name)
            seen.add(n)
        elif d:
            n, named = int(d.group(1)), int(d.group(2), 16)
            if n in records:
                problems.append("duplicated: %s" % name)
            records.add(n)
        else:
            problems.append("torn or foreign: %r at %#x" % (name, address))
            continue
        if address != named or size != SYMBOL_BYTES:
            problems.append("misplaced: %s at %#x size %d" % (name, address, size))
    if len(bases) > 1:
        problems.append("map symbols claim %d regions" % len(bases))
    if len(lines) > 1:
        problems.append("generations mixed: %s" % sorted(lines))
    addresses = [address for _, address, _ in symbols]
    if len(set(addresses)) != len(addresses):
        problems.append("%d addresses named twice" % (len(addresses) - len(set(addresses))))
    for key, seen in lines.items():
        if seen and max(seen) + 1 != len(seen):
            problems.append("lost: %s%d lines %d of 0..%d" % (key[0], key[1], len(seen), max(seen)))
    if records and max(records) + 1 != len(records):
        problems.append("lost: jitdump records %d of 0..%d" % (len(records), max(records)))
    return lines, records, problems


def launch(session, program, args):
    target = session.debugger.CreateTarget(program)
    target.BreakpointCreateByName("stress_probe")
    process = target.LaunchSimple(args, None, os.getcwd())
    if not process or process.GetState() != lldb.eStateStopped:
        sys.exit("stress_session.py: %s did not stop at stress_probe" % program)
    return target, process


def probe_argument(process):
    frame = process.GetSelectedThread().GetFrameAtIndex(0)
    return frame.FindVariable("n").GetValueAsSigned()


def writers(session, program, args):
    target, process = launch(session, program, args)
    stops, counts, failures = 0, [], 0
    last_total = 0
    while process.GetState() == lldb.eStateStopped:
        stops += 1
        lines, records, problems = check(session.jit_symbols(target))
        for problem in problems[:20]:
            print("stop %d: %s" % (stops, problem))
        failures += len(problems)
        total = sum(len(s) for s in lines.values()) + len(records)
        if total < last_total and not any(g > 0 for _, g in lines):
            print("stop %d: symbols went from %d to %d" % (stops, last_total, total))
            failures += 1
        last_total = total
        counts.append(total)
        if probe_argument(process) == -1:
            break
        process.Continue()
    out = process.GetSTDOUT(1 << 16)
    written = re.search(r"writer: (\d+) map lines \(generation (\d+)\), (\d+) jitdump records", out)
    if not written:
        sys.exit("stress_session.py: no writer summary in %r" % out)
    want_lines, want_gen, want_records = (int(g) for g in written.groups())
    gens = sorted(g for _, g in lines)
    got_lines = sum(len(s) for s in lines.values())
    print("stops: %d, symbols seen at each: %s" % (stops, " ".join(str(c) for c in counts)))
    print("written: %d map lines (generation %d), %d jitdump records" % (want_lines, want_gen, want_records))
    print("in LLDB at the last stop: %d map lines (generations %s), %d jitdump records"
          % (got_lines, gens, len(records)))
    print("status: " + session.run("jit-sync --status").replace("\n", " | "))
    exact = got_lines == want_lines and len(records) == want_records and (
        not want_lines or gens == [want_gen])
    print("%s; %d problems" % ("exact" if exact else "NOT EXACT", failures))
    process.Kill()


def exit_mid_sync(session, program, args):
    session.run("jit-sync --auto off")
    target, process = launch(session, program, args)
    pid = process.GetProcessID()
    result = {}

    def sync():
        result["text"] = session.run("jit-sync")
    worker = threading.Thread(target=sync)
    started = time.time()
    worker.start()
    time.sleep(0.5)
    os.kill(pid, signal.SIGKILL)
    worker.join()
    print("jit-sync returned %.1f s after it began" % (time.time() - started))
    print("jit-sync said: " + result["text"].strip().replace("\n", " | "))
    # LLDB learns of the death at its next step.
    error = process.Continue()
    if not error.Success():
        print("continue: %s" % error.GetCString())
    print("process state: %s" % lldb.SBDebugger.StateAsCString(process.GetState()))
    print("after exit: " + session.run("jit-sync").strip())
    left = [m.GetFileSpec().fullpath for m in target.module_iter()
            if m.GetFileSpec().fullpath.startswith(session.private)]
    print("JIT modules left: %d" % len(left))
    print("LLDB still answers: " + session.run("version").splitlines()[0][:9])


def interrupt(session, program, args):
    """A first jit-sync of a large map, interrupted (as Ctrl-C does) 0.3 s in;
    the next jit-sync must go on from there and end with every line, once."""
    session.run("jit-sync --auto off")
    target, process = launch(session, program, args)
    result = {}
    worker = threading.Thread(target=lambda: result.update(text=session.run("jit-sync")))
    worker.start()
    time.sleep(0.3)
    asked = time.time()
    session.debugger.RequestInterrupt()
    worker.join()
    session.debugger.CancelInterruptRequest()
    print("interrupted jit-sync returned %.1f s after the request" % (time.time() - asked))
    print("it said: " + result["text"].strip())
    print("then: " + session.run("jit-sync").strip())
    lines, records, problems = check(session.jit_symbols(target))
    map_lines = sum(1 for _ in open("/tmp/perf-%d.map" % process.GetProcessID()))
    print("in LLDB: %d of the %d lines in the map; problems: %s" % (
        sum(len(v) for v in lines.values()), map_lines, problems or "none"))
    process.Kill()


def exec_scenario(session, program, args):
    target, process = launch(session, program, args)
    while process.GetState() == lldb.eStateStopped:
        thread = process.GetSelectedThread()
        if thread.GetStopReason() == lldb.eStopReasonExec:
            print("stopped at exec")
        elif probe_argument(process) == 1 and any(
                s[0].startswith("after_exec") for s in session.jit_symbols(target)):
            break
        process.Continue()
    names = sorted(s[0] for s in session.jit_symbols(target))
    old = [n for n in names if MAP_NAME.match(n)]
    print("after exec: %s; symbols of the old program: %d" % (
        " ".join(n for n in names if n.startswith("after_exec")), len(old)))
    status = session.run("jit-sync --status")
    print("status: " + " | ".join(l.strip() for l in status.splitlines() if "symbols:" in l or "read:" in l))
    print("bt: " + " ".join(
        f.GetFunctionName() or "?" for f in process.GetSelectedThread().frames[:2]))
    process.Kill()


def stage_reuse(program, args, append):
    """Runs a process that writes a map and exits, then forks until the next
    process gets its PID: that one, waiting for the debugger. Returns the PID."""
    earlier = subprocess.run([program, "--map-rate", "1000", "--seconds", "0.2", "--probe-ms",
                              "0", "--tag", "old"], stdout=subprocess.PIPE, text=True, check=True)
    pid = int(re.search(r"stressjit (\d+):", earlier.stdout).group(1))
    time.sleep(2.5)  # the map is older than any process started from now on
    for attempt in range(10000):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        child = os.fork()
        if child == 0:
            mode = ["--append-map"] if append else []
            os.execv(program, [program, "--wait-attach", "--tag", "new"] + mode + args)
        if child == pid:
            return pid
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    sys.exit("stress_session.py: PID %d was not given again" % pid)


def pid_reuse(session, program, args, append=True):
    # An earlier process writes a map and exits; its PID is then given to the
    # next process forked (ns_last_pid), which appends to the same map (or,
    # as most runtimes do, truncates it and writes it anew).
    # Other tests run beside this one and take PIDs too (and another may stage
    # a reuse): one staging at a time, and as many tries as it takes. A test
    # that had the same PID before may remove "its" map meanwhile (seen once
    # under ASan): then the staging starts again.
    with open(os.path.join(os.environ["JITSYM_DIR"], "pid-reuse.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for staging in range(5):
            pid = stage_reuse(program, args, append)
            if os.path.exists("/tmp/perf-%d.map" % pid):
                break
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        else:
            sys.exit("stress_session.py: the earlier process's map went five times")
    try:
        debug_reused(session, program, pid)
    finally:
        # Whatever ended the session (an error, sys.exit, an exception), the
        # child must not outlive it holding the test's output pipe.
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


def debug_reused(session, program, pid):
    print("PID %d reused; its map has %d lines from the earlier process" % (
        pid, sum(1 for _ in open("/tmp/perf-%d.map" % pid))))
    target = session.debugger.CreateTarget(program)
    target.BreakpointCreateByName("stress_probe")
    error = lldb.SBError()
    process = target.AttachToProcessWithID(session.debugger.GetListener(), pid, error)
    if not error.Success():
        sys.exit("stress_session.py: attach failed: %s" % error)
    print("at attach: " + session.run("jit-sync").strip())
    process.Continue()  # the new process appends its lines, then stops at a probe
    while process.GetState() == lldb.eStateStopped and probe_argument(process) != -1:
        process.Continue()
    lines, records, problems = check(session.jit_symbols(target))
    print("at the last stop: %s; problems: %s" % (
        ", ".join("%s%d: %d lines" % (k[0], k[1], len(v)) for k, v in sorted(lines.items())),
        problems or "none"))
    process.Kill()


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    scenario, plugin, program, args = argv[0], argv[1], argv[2], argv[3:]
    sys.stdout.reconfigure(line_buffering=True)  # in order with stressjit's lines
    session = Session(plugin)
    {"writers": writers, "exit": exit_mid_sync, "exec": exec_scenario, "interrupt": interrupt,
     "pid-reuse": pid_reuse,
     "pid-reuse-rewrite": lambda *a: pid_reuse(*a, append=False)}[scenario](session, program, args)
    sys.stdout.flush()
    os._exit(0)  # not LLDB's teardown: the verdict is printed


if __name__ == "__main__":
    main(sys.argv[1:])
