"""Erlang/OTP's BEAM with its JIT writing a perf map (+JPperf map), debugged
with jitsym: LLDB attaches while the VM waits, sets a pending breakpoint under
the name an Erlang user types (MODULE:FUNCTION/ARITY), and continues; the
module is loaded and compiled after that. Prints what FileCheck pins, then
detaches and lets the program finish.

usage: beam_session.py PLUGIN MODULE_DIR FUNCTION [PERF]
PERF is +JPperf's value: map (the default), true (map and jitdump, which
BEAM writes as /tmp/jit-PID.dump: it gives the lines), or dump (the jitdump
alone).
"""
import os
import subprocess
import sys
import time

import lldb
from lldb_driver import Driver, continue_past_compile_stops


def main():
    plugin, module_dir, function = sys.argv[1:4]
    perf = sys.argv[4] if len(sys.argv) > 4 else "map"
    # busy:main() only after a while: LLDB attaches before the module loads.
    erl = subprocess.Popen(
        ["erl", "+JPperf", perf, "-noshell", "-pa", module_dir,
         "-eval", "timer:sleep(2000), busy:main()."],
        stdout=subprocess.PIPE, text=True)
    beam = None
    for _ in range(100):  # erl execs beam.smp in the same process
        with open("/proc/%d/comm" % erl.pid) as f:
            if f.read().strip() == "beam.smp":
                beam = erl.pid
                break
        time.sleep(0.02)
    if beam is None:
        erl.kill()
        sys.exit("beam_session.py: erl did not start beam.smp")
    session = Driver(plugin)
    try:
        session.run("process attach --pid %d" % beam)
        process = session.debugger.GetSelectedTarget().GetProcess()
        print("(lldb) breakpoint set -n " + function)
        print(session.run("breakpoint set -n " + function).strip())
        session.run("process continue")  # the command: jitsym sees the new breakpoint
        print("compile stops shown and continued: %d" % continue_past_compile_stops(process))
        for command in ["bt 2", "breakpoint list 1", "process detach"]:
            print("(lldb) " + command)
            print(session.run(command).strip())
        out, _ = erl.communicate(timeout=60)
        print(out.strip())
        print("exit status", erl.returncode)
    finally:
        if erl.poll() is None:
            erl.kill()
            erl.wait()
        for written in ("/tmp/perf-%d.map" % beam, "/tmp/jit-%d.dump" % beam):
            if os.path.exists(written):  # BEAM's map and jitdump go to /tmp
                os.unlink(written)


if __name__ == "__main__":
    main()
