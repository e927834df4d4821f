"""Attaches to a running tinyjit that sits in jit_probe with its JIT callers
below it, as a user does (`process attach -p PID` at LLDB's prompt), and runs
no command of jitsym's before `bt`: the attach stop must have synced.

usage: attach_session.py PLUGIN TINYJIT   (in a scratch directory)
"""
import os
import signal
import subprocess
import sys

from lldb_driver import Driver

plugin, tinyjit = sys.argv[1], sys.argv[2]
child = subprocess.Popen([tinyjit, "--phases", "1", "--probe-sleep-ms", "60000"],
                         stdout=subprocess.PIPE, text=True)
try:
    line = child.stdout.readline()  # "phase 1: ..." once its code is in place
    if not line.startswith("phase 1:"):
        sys.exit("attach_session.py: tinyjit said %r" % line)
    driver = Driver(plugin)
    for command in ("process attach -p %d" % child.pid, "bt 8", "jit-sync --status"):
        print("(lldb) " + command)
        print(driver.run(command))
    driver.run("process kill")
finally:
    if child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
    child.wait()
