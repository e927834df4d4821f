"""Debugs a PostgreSQL backend whose LLVM JIT writes a jitdump
(jit_profiling_support): starts a private server in WORKDIR (no TCP, its
socket in WORKDIR, JITDUMPDIR in WORKDIR), attaches LLDB with jitsym to the
backend of a psql session, sets `breakpoint set -r ^evalexpr_` while no JIT
code exists, runs a query that PostgreSQL compiles, and prints where the
backend stopped and what the query returned. The server is stopped and
WORKDIR's server files removed at the end, whatever happened.

usage: postgres_session.py PLUGIN WORKDIR   (run as root: the server runs as
the `postgres` user, which the package creates)
"""
import os
import shutil
import subprocess
import sys
import time

import lldb

BIN = "/usr/lib/postgresql/15/bin"
plugin, work = sys.argv[1], os.path.abspath(sys.argv[2])
data, dumps = os.path.join(work, "data"), os.path.join(work, "jitdump")
for path in (work, dumps):
    os.makedirs(path, exist_ok=True)
    shutil.chown(path, "postgres")


def as_postgres(*command, **kwargs):
    return subprocess.run(["runuser", "-u", "postgres", "--", *command], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)


as_postgres(BIN + "/initdb", "-D", data, "--no-sync")
# Every query is compiled (cost 0), with LLVM's perf listener on.
options = ("-p 5499 -k %s -c listen_addresses= -c jit=on -c jit_above_cost=0 "
           "-c jit_inline_above_cost=0 -c jit_optimize_above_cost=0 "
           "-c jit_profiling_support=on" % work)
as_postgres(BIN + "/pg_ctl", "-D", data, "-l", os.path.join(work, "server.log"), "-w",
            "-o", options, "start", env=dict(os.environ, JITDUMPDIR=dumps))
psql = None
try:
    psql = subprocess.Popen(["runuser", "-u", "postgres", "--", BIN + "/psql", "-h", work,
                             "-p", "5499", "-At", "-d", "postgres"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, bufsize=1)

    def query(sql):
        psql.stdin.write(sql + "\n")
        psql.stdin.flush()

    query("select pg_backend_pid();")
    backend = int(psql.stdout.readline())

    debugger = lldb.SBDebugger.Create(False)
    debugger.SetAsync(False)
    interpreter = debugger.GetCommandInterpreter()

    def run(command):
        result = lldb.SBCommandReturnObject()
        interpreter.HandleCommand(command, result)
        text = ((result.GetOutput() or "") + (result.GetError() or "")).rstrip()
        print("(lldb) %s\n%s" % (command, text) if text else "(lldb) " + command)

    run("plugin load " + plugin)
    run("process attach -p %d" % backend)
    run("breakpoint set -r ^evalexpr_")
    target = debugger.GetSelectedTarget()
    process = target.GetProcess()
    # As a user would: `process continue` (the command) is where jitsym sees
    # the breakpoint set at the prompt and starts watching for compiles.
    debugger.SetAsync(True)
    run("process continue")
    query("select sum(a) from generate_series(1, 1000) a where a % 3 = 0;")
    # Stops that are not breakpoint 1 (a compile stop LLDB shows, see
    # DESIGN.md) are continued.
    listener, event = debugger.GetListener(), lldb.SBEvent()
    stopped, deadline = False, time.time() + 60
    while not stopped and time.time() < deadline:
        if not listener.WaitForEvent(1, event) or not lldb.SBProcess.EventIsProcessEvent(event):
            continue
        if (lldb.SBProcess.GetStateFromEvent(event) != lldb.eStateStopped or
                lldb.SBProcess.GetRestartedFromEvent(event)):
            continue
        thread = process.GetSelectedThread()
        stopped = (thread.GetStopReason() == lldb.eStopReasonBreakpoint and
                   thread.GetStopReasonDataAtIndex(0) == 1)
        if not stopped:
            run("process continue")
    debugger.SetAsync(False)
    print("stopped at breakpoint 1: %s" % stopped)
    if stopped:
        run("bt 2")
        run("breakpoint disable 1")
    debugger.SetAsync(True)
    run("process continue")
    query("\\q")
    print("query result: " + psql.stdout.read().strip())  # the backend has exited
    lldb.SBDebugger.Destroy(debugger)
finally:
    if psql and psql.poll() is None:
        psql.kill()
    subprocess.run(["runuser", "-u", "postgres", "--", BIN + "/pg_ctl", "-D", data, "-m",
                    "immediate", "-w", "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    shutil.rmtree(data, ignore_errors=True)
