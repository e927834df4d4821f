"""Interrupts a busy Node (--perf-basic-prof) three times with
SBProcess::Stop(), as an IDE's pause does, and runs no command of jitsym's:
at each stop it prints the JavaScript frames of the main thread's backtrace
as LLDB names them, read through the SB API.

usage: node_interrupt.py PLUGIN BUSY.js   (in a scratch directory)
"""
import os
import sys
import time

import lldb

plugin, script = sys.argv[1], sys.argv[2]
debugger = lldb.SBDebugger.Create(False)
interpreter = debugger.GetCommandInterpreter()


def run(command):
    result = lldb.SBCommandReturnObject()
    interpreter.HandleCommand(command, result)
    return (result.GetOutput() or "") + (result.GetError() or "")


run("plugin load " + plugin)
target = debugger.CreateTarget(os.environ.get("NODE", "/usr/bin/node"))
run("process handle SIGUSR1 SIGPROF -s false -n false -p true")
debugger.SetAsync(True)
error = lldb.SBError()
process = target.Launch(debugger.GetListener(), ["--perf-basic-prof", script], None,
                        None, os.path.abspath("out"), None, os.getcwd(), 0, False, error)
listener, event = debugger.GetListener(), lldb.SBEvent()


def wait_for(state, timeout=20):
    # This process is the debugger's only listener: it takes every event.
    end = time.time() + timeout
    while time.time() < end:
        if (listener.WaitForEvent(1, event) and lldb.SBProcess.EventIsProcessEvent(event) and
                lldb.SBProcess.GetStateFromEvent(event) == state):
            return True
    return False


if not wait_for(lldb.eStateRunning):
    sys.exit("node never ran")
for interrupt in range(1, 4):
    time.sleep(1.5)  # busy in JavaScript meanwhile
    process.Stop()
    stopped = wait_for(lldb.eStateStopped)
    time.sleep(0.5)  # jitsym's thread syncs a stop no stop hook was at
    thread = process.GetThreadAtIndex(0)
    js = []
    for frame in thread:
        name = frame.GetSymbol().GetName() or ""
        if frame.GetModule().GetFileSpec().GetFilename() == "jit" and name.startswith("JS:"):
            js.append(name.split(" ")[0])
    print("interrupt %d: stopped=%s JS frames named: %s" % (interrupt, stopped, sorted(set(js))))
    sys.stdout.flush()
    process.Continue()
    wait_for(lldb.eStateRunning, 5)

pid = process.GetProcessID()
process.Kill()
wait_for(lldb.eStateExited, 5)
perf_map = "/tmp/perf-%d.map" % pid
if os.path.exists(perf_map):  # a map left in /tmp would be taken for a later PID's
    os.unlink(perf_map)
lldb.SBDebugger.Destroy(debugger)
