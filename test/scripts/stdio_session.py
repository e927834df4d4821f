"""Stops a JIT that writes its jitdump through a stdio FILE (test/support/stdiojit.c,
stream mode) every INTERVAL_MS for SECONDS, at whatever instruction it is at, as a
user pausing `node --perf-prof` does, and runs jit-sync at each stop. No stop may
take the dump for corrupt; at the last stop LLDB must name at least 99% of the
code loads the file holds. Also counts the stops that found the FILE's buffer
already written (glibc between its write(2) and the reset of its pointers).

usage: stdio_session.py PLUGIN SECONDS INTERVAL_MS STDIOJIT [STDIOJIT ARG...]
"""
import atexit
import os
import re
import signal
import struct
import sys
import time

import lldb
from lldb_driver import Driver

NAME = re.compile(r"^stream_fn_(\d+)$")


def wait_for(listener, process, states, seconds=30, required=True):
    """The first of `states` the process reaches; None after `seconds` unless
    `required` (then the script ends)."""
    deadline = time.time() + seconds
    event = lldb.SBEvent()
    while time.time() < deadline:
        if not listener.WaitForEvent(1, event):
            # An event another listener took (LLDB's own, under load) still
            # shows in the state.
            if process.GetState() in states:
                return process.GetState()
            continue
        if not lldb.SBProcess.EventIsProcessEvent(event):
            continue
        state = lldb.SBProcess.GetStateFromEvent(event)
        if state in states:
            return state
        if state in (lldb.eStateExited, lldb.eStateCrashed, lldb.eStateDetached):
            sys.exit("stdio_session.py: the process ended (%s)" % lldb.SBDebugger.StateAsCString(state))
    if not required:
        return None
    sys.exit("stdio_session.py: no %s event in %d s (the process is %s)" % (
        [lldb.SBDebugger.StateAsCString(s) for s in states], seconds,
        lldb.SBDebugger.StateAsCString(process.GetState())))


def kill_quietly(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def resume(listener, process):
    """Continues the process; under a sanitizer's load a continue can go
    unheard, so it is asked again before giving up."""
    for attempt in range(3):
        error = process.Continue()
        if wait_for(listener, process, [lldb.eStateRunning], 10, required=False):
            return
    sys.exit("stdio_session.py: the process did not run on after 3 continues (%s; it is %s)" % (
        error.GetCString(), lldb.SBDebugger.StateAsCString(process.GetState())))


def code_loads_in(path):
    """Names of the complete CODE_LOAD records in the jitdump at `path`."""
    with open(path, "rb") as f:
        data = f.read()
    names, at = set(), struct.unpack_from("<I", data, 8)[0] if len(data) >= 40 else len(data)
    while at + 16 <= len(data):
        kind, size = struct.unpack_from("<II", data, at)
        if size < 16 or at + size > len(data):
            break
        if kind == 0:
            name_at = at + 16 + 8 + 32
            names.add(data[name_at:data.index(b"\0", name_at)].decode())
        at += size
    return names


def buffer_already_written(process, target, path):
    """Whether the FILE's pending bytes are the file's last bytes already."""
    stream = target.FindFirstGlobalVariable("dump")
    base = stream.GetChildMemberWithName("_IO_write_base").GetValueAsUnsigned()
    end = stream.GetChildMemberWithName("_IO_write_ptr").GetValueAsUnsigned()
    if not base or end <= base:
        return False
    error = lldb.SBError()
    pending = process.ReadMemory(base, end - base, error)
    if not error.Success():
        return False
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size < len(pending):
            return False
        f.seek(size - len(pending))
        return f.read() == pending


def main():
    plugin, seconds, interval_ms, program = sys.argv[1:5]
    driver = Driver(plugin, async_mode=True)
    debugger, run = driver.debugger, driver.run
    # Interrupt stops run no stop hook: every sync is this script's, so every
    # diagnostic is seen here.
    run("jit-sync --auto off")
    run("process handle SIGSTOP -s true -n false -p false")
    target = debugger.CreateTarget(program)
    listener = debugger.GetListener()
    info = lldb.SBLaunchInfo(sys.argv[5:])
    info.SetWorkingDirectory(os.getcwd())
    error = lldb.SBError()
    process = target.Launch(info, error)
    if not error.Success():
        sys.exit("stdio_session.py: launch: %s" % error.GetCString())
    # Whatever ends this script (a failed wait exits at once), the JIT goes
    # with it: left running it would write its dump for ever.
    atexit.register(kill_quietly, process.GetProcessID())
    wait_for(listener, process, [lldb.eStateRunning])
    dump = os.path.join(os.getcwd(), "jit-%d.dump" % process.GetProcessID())

    stops, already_written, halts, complaints = 0, 0, 0, []
    end = time.time() + float(seconds)
    while True:
        time.sleep(float(interval_ms) / 1000)
        # SIGSTOP, not SBProcess.Stop (which takes 120 ms here): the process
        # stops at whatever instruction it is at, a signal stop as a user's.
        os.kill(process.GetProcessID(), signal.SIGSTOP)
        if not wait_for(listener, process, [lldb.eStateStopped], 5, required=False):
            halts += 1  # the signal was lost to LLDB: stop it the slow way
            process.Stop()
            wait_for(listener, process, [lldb.eStateStopped])
        stops += 1
        said = run("jit-sync")
        for line in said.splitlines():
            if re.search(r"impossible|not read|corrupt|warning|error", line):
                complaints.append("stop %d: %s" % (stops, line.strip()))
        if os.path.exists(dump) and buffer_already_written(process, target, dump):
            already_written += 1
        if time.time() >= end:
            break
        resume(listener, process)

    in_file = code_loads_in(dump)
    named = set()
    private = os.environ["JITSYM_DIR"]
    for module in target.module_iter():
        if module.GetFileSpec().fullpath.startswith(private):
            named.update(s.GetName() for s in module if NAME.match(s.GetName() or ""))
    known = len(in_file & named)
    for complaint in complaints[:20]:
        print(complaint)
    print("stops: %d in %s s, %d with the FILE's buffer already in the file" % (
        stops, seconds, already_written))
    if halts:
        print("stops made by SBProcess.Stop after a SIGSTOP went unseen: %d" % halts)
    print("code loads in the file: %d, named in LLDB: %d (%.2f%%)" % (
        len(in_file), known, 100.0 * known / max(1, len(in_file))))
    status = run("jit-sync --status")
    counted = re.search(r"read: (\d+) code loads", status)
    counted = int(counted.group(1)) if counted else -1
    # Every function is compiled once, at its own address: a load counted
    # twice (from the buffer, then from the file) shows as more loads than names.
    print("code loads counted: %d, functions named: %d%s" % (
        counted, len(named), "" if counted == len(named) else " (MISCOUNTED)"))
    print("status: " + status.replace("\n", " | "))
    print("%s; %d complaints" % (
        "at least 99% named" if in_file and known * 100 >= 99 * len(in_file) else "TOO FEW NAMED",
        len(complaints)))
    # In async mode Kill returns at once; a debugger destroyed before the kill
    # lands lets the JIT run on, writing its dump.
    pid = process.GetProcessID()
    process.Kill()
    wait_for(listener, process, [lldb.eStateExited], 10, required=False)
    lldb.SBDebugger.Destroy(debugger)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if os.path.exists(dump):
        os.remove(dump)


if __name__ == "__main__":
    main()
