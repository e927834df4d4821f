"""jit-sync inside LLDB: the first sync of a 1M-line map, then a stop where 1k
lines were appended, then a stop with nothing new. Prints what jit-sync reports
and the wall time of each command.

With --remote the process runs behind an lldb-server platform on loopback, and
jit-sync copies the map through the platform connection (the server sees the
same files, so the benchmark can append to the map; the tests in test/remote
check that nothing is read locally).

usage: sync_bench.py [--remote] BUILD_DIR [LINES]   (LLDB_DEBUGSERVER_PATH must be set)
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import lldb

remote = "--remote" in sys.argv
args = [a for a in sys.argv[1:] if a != "--remote"]
build = args[0]
lines = int(args[1]) if len(args) > 1 else 1000000
work = tempfile.mkdtemp(prefix="jitsym-sync-bench-")
os.environ.setdefault("JITSYM_DIR", os.path.join(work, "private"))
map_path = os.path.join(work, "bench.map")

debugger = lldb.SBDebugger.Create()
debugger.SetAsync(False)
interp = debugger.GetCommandInterpreter()


def run(command):
    result = lldb.SBCommandReturnObject()
    start = time.perf_counter()
    interp.HandleCommand(command, result)
    elapsed = (time.perf_counter() - start) * 1000
    return (result.GetOutput() or "") + (result.GetError() or ""), elapsed


if remote:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(["/usr/lib/llvm-22/bin/lldb-server-22", "platform", "--server",
                               "--listen", "127.0.0.1:%d" % port])
    time.sleep(0.5)
    platform = lldb.SBPlatform("remote-linux")
    error = platform.ConnectRemote(lldb.SBPlatformConnectOptions("connect://127.0.0.1:%d" % port))
    assert error.Success(), error.GetCString()
    debugger.SetSelectedPlatform(platform)

run("plugin load " + os.path.join(build, "lib", "libjitsym-lldb.so"))
run("jit-sync --auto off")  # the benchmark calls jit-sync itself
target = debugger.CreateTarget(os.path.join(build, "bin", "tinyjit"))
target.BreakpointCreateByName("jit_probe")
process = target.LaunchSimple(
    ["--bulk", str(lines), "--phases", "1", "--map", map_path], None, work)
assert process.GetState() == lldb.eStateStopped, process.GetState()


def sync(label):
    out, wall = run("jit-sync --map " + map_path)
    reported = re.search(r"([0-9.]+) ms", out)
    print("%-34s jit-sync says %8s ms, wall %9.1f ms | %s" % (
        label, reported.group(1) if reported else "?", wall, out.strip()))


sync("first sync, %d lines:" % (lines + 2))
# 1k new functions in the phase region's free slots (256-byte slots after the
# two phase-1 functions), appended the way a runtime appends them.
entry = next(l for l in open(map_path) if l.rstrip().endswith(" jit_phase1_entry"))
base = int(entry.split()[0], 16)
with open(map_path, "a") as f:
    for i in range(1000):
        f.write("%x 10 bench_new_%d\n" % (base + (8 + i) * 256, i))
sync("1k appended after %d:" % lines)
sync("nothing new:")
out, _ = run("image lookup -n bench_new_999")
print("check:", "found" if "bench_new_999" in out else "MISSING")
rss = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]) // 1024
print("peak RSS of this LLDB process: %d MB" % rss)
process.Kill()
if remote:
    server.terminate()
# Its 1M-line map and the plugin's files are this run's only.
lldb.SBDebugger.Destroy(debugger)
shutil.rmtree(work, ignore_errors=True)
