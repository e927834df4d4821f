"""Interrupts a running tinyjit, whose jit_probe sleeps with the phase's JIT
frames below it, in each way a user can, and prints what `bt` shows there.
LLDB runs no stop hook at an interrupt stop; jitsym syncs it from its own
listener (plugin/InterruptStops.h).

usage: interrupt_session.py PLUGIN TINYJIT LLDB_COMMAND KIND...
  stop      SBProcess::Stop() (what lldb-dap's pause does)
  command   `process interrupt`
  async     SBProcess::SendAsyncInterrupt()
  ctrl-c    Ctrl-C typed at the lldb command line, in a pseudo-terminal

For each KIND it prints "KIND: ..." with whether jit-sync synced once more
at the stop, and the JIT frames of the backtrace. Writes only in its working
directory.
"""
import fcntl
import os
import pty
import re
import select
import shlex
import subprocess
import sys
import termios
import time

import lldb

plugin, tinyjit, lldb_command, kinds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
PROGRAM_ARGS = ["--phases", "1", "--probe-sleep-ms", "60000"]


def remove_map(pid):
    """tinyjit's map, which a later process given the PID would take for its own."""
    if os.path.exists("/tmp/perf-%d.map" % pid):
        os.unlink("/tmp/perf-%d.map" % pid)


def wait_for_jit_frames(kind):
    """Until tinyjit sits in jit_probe's sleep with its JIT frames below: it
    prints phase 1's line once the code is in place (a fixed wait was too short
    for a sanitized tinyjit on a loaded machine)."""
    output = os.path.abspath("out-" + kind)
    deadline = time.time() + 30
    while time.time() < deadline:
        if os.path.exists(output) and "phase 1:" in open(output).read():
            break
        time.sleep(0.05)
    time.sleep(0.2)  # from the line into jit_probe


def jit_frames(backtrace):
    return [re.sub(r"^.*frame #\d+: 0x[0-9a-f]+ ", "", line).strip()
            for line in backtrace.splitlines() if "frame #" in line and " jit`" in line]


def syncs(status):
    found = re.search(r"syncs: (\d+)", status)
    return int(found.group(1)) if found else -1


class ThroughSbApi:
    """One debugger for every kind: jitsym's watchers end with a debugger."""

    def __init__(self):
        self.debugger = lldb.SBDebugger.Create(False)
        self.interpreter = self.debugger.GetCommandInterpreter()
        self.run("plugin load " + plugin)
        self.target = self.debugger.CreateTarget(tinyjit)

    def run(self, command):
        result = lldb.SBCommandReturnObject()
        self.interpreter.HandleCommand(command, result)
        return (result.GetOutput() or "") + (result.GetError() or "")

    def interrupt(self, kind):
        debugger = self.debugger
        debugger.SetAsync(True)
        self.run("process launch -o %s -- %s" % (os.path.abspath("out-" + kind),
                                                  " ".join(PROGRAM_ARGS)))
        listener, event = debugger.GetListener(), lldb.SBEvent()

        # This process is its debugger's only listener: events move on (to
        # jitsym's listener too) only as they are taken here.
        def next_state(timeout):
            end = time.time() + timeout
            while time.time() < end:
                if listener.WaitForEvent(1, event) and lldb.SBProcess.EventIsProcessEvent(event):
                    return (lldb.SBProcess.GetStateFromEvent(event),
                            lldb.SBProcess.GetInterruptedFromEvent(event))
            return None, False

        state = None
        while state != lldb.eStateRunning:
            state, _ = next_state(10)
            if state is None:
                sys.exit("%s: the process never ran" % kind)
        wait_for_jit_frames(kind)
        process = self.target.GetProcess()
        syncs_before = syncs(self.run("jit-sync --status"))
        if kind == "stop":
            process.Stop()
        elif kind == "command":
            self.run("process interrupt")
        else:
            process.SendAsyncInterrupt()
        state, interrupted = next_state(10)
        debugger.SetAsync(False)
        # jitsym syncs on its own thread as the event reaches it; wait for that.
        end, count = time.time() + 10, syncs_before
        while time.time() < end and count <= syncs_before:
            count = syncs(self.run("jit-sync --status"))
            time.sleep(0.05)
        print("%s: stopped=%s interrupted=%s synced=%s frames=%s" % (
            kind, state == lldb.eStateStopped, interrupted, count == syncs_before + 1,
            jit_frames(self.run("thread backtrace"))))
        remove_map(process.GetProcessID())
        process.Kill()


def at_the_command_line():
    leader, follower = pty.openpty()
    # The terminal is LLDB's controlling terminal, so that Ctrl-C there is a
    # SIGINT to LLDB, as at a user's prompt.
    lldb_process = subprocess.Popen(shlex.split(lldb_command) + ["--no-lldbinit"], stdin=follower,
                                    stdout=follower, stderr=follower, close_fds=True,
                                    start_new_session=True,
                                    preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(follower)
    transcript = ""

    def read_until(pattern, timeout):
        nonlocal transcript
        end = time.time() + timeout
        while time.time() < end:
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                try:
                    transcript += os.read(leader, 65536).decode("utf-8", "replace")
                except OSError:
                    break
            if re.search(pattern, transcript):
                return True
        return False

    def send(text):
        os.write(leader, text.encode())

    for command in ("settings set show-statusline false", "settings set use-color false",
                    "plugin load " + plugin, "target create " + tinyjit):
        send(command + "\n")
        read_until(r"\(lldb\) $", 10)
    send("process launch -o %s -- %s\n" % (os.path.abspath("out-ctrl-c"), " ".join(PROGRAM_ARGS)))
    read_until(r"launched", 10)
    wait_for_jit_frames("ctrl-c")
    send("\x03")
    stopped = read_until(r"Process \d+ stopped", 10)
    read_until(r"\(lldb\) $", 5)
    mark = len(transcript)
    send("thread backtrace\n")
    read_until(r"frame #\d+: [^\n]*main[^\n]*\n[\s\S]*\(lldb\) $", 10)
    backtrace = transcript[mark:]
    mark = len(transcript)
    send("jit-sync --status\n")
    read_until(r"compile watch[^\n]*\n", 10)
    status = transcript[mark:]
    pid = re.search(r"Process (\d+) launched", transcript)
    send("process kill\n")
    read_until(r"\(lldb\) $", 10)
    send("quit\n")
    try:
        lldb_process.wait(10)
    except subprocess.TimeoutExpired:
        lldb_process.kill()
    os.close(leader)
    if pid:
        remove_map(int(pid.group(1)))
    print("ctrl-c: stopped=%s synced=%s frames=%s" % (stopped, syncs(status) == 1,
                                                   jit_frames(backtrace)))
    if os.environ.get("INTERRUPT_SESSION_TRANSCRIPT"):
        print(transcript)


sb_api = None
for kind in kinds:
    if kind == "ctrl-c":
        at_the_command_line()
    else:
        sb_api = sb_api or ThroughSbApi()
        sb_api.interrupt(kind)
if sb_api:
    lldb.SBDebugger.Destroy(sb_api.debugger)
