"""Stops a live Node process that writes both a perf map and a jitdump
(--perf-basic-prof --perf-prof) under JIT frames, with the jitsym plugin, and
prints what FileCheck pins: the sources jit-sync follows, how many JIT symbols
LLDB has and how many of them share a start address (code both files announce
must be listed once), and the line LLDB gives a TurboFan frame.

usage: node_both_sources.py PLUGIN APP.js   (run in a scratch directory: node
writes jit-PID.dump in its working directory)
"""
import sys

from lldb_driver import module_symbols
from node_session import NodeSession

plugin, app = sys.argv[1], sys.argv[2]
session = NodeSession(plugin, ["--perf-basic-prof", "--perf-prof", app, "20000"])
target, process = session.target, session.process
status = session.run("jit-sync --status")
print(status)


def report_shared_starts():
    starts = {}
    for module in target.module_iter():
        if module.GetFileSpec().GetFilename() != "jit":
            continue
        for name, address, _ in module_symbols(module, target):
            starts.setdefault(address, []).append(name)
    shared = {a: names for a, names in starts.items() if len(names) > 1}
    print("jit symbols: %d, sharing a start address: %d"
          % (sum(len(n) for n in starts.values()), len(shared)))
    for address, names in list(shared.items())[:5]:
        print("  0x%x: %s" % (address, names))


report_shared_starts()
# Naming the same dump explicitly is a change of source: both files are read
# again from the start, with the same result.
dump = next(line.split(": ", 1)[1] for line in status.splitlines()
            if line.startswith("jitdump: "))
print(session.run("jit-sync --jitdump " + dump))
report_shared_starts()

thread = process.GetSelectedThread()
for frame in thread:
    name = frame.GetSymbol().GetName() or ""
    if name.startswith("JS:*"):
        entry = frame.GetLineEntry()
        where = "%s:%d" % (entry.GetFileSpec().GetFilename(), entry.GetLine()) \
            if entry.IsValid() else "no line"
        print("optimized frame: %s at %s" % (name, where))
        break
session.finish()
