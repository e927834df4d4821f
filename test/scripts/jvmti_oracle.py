#!/usr/bin/python3
"""HotSpot as the oracle for the JVMTI agent: runs a program with the agent,
has HotSpot write its own perf map (jcmd PID Compiler.perfmap) and checks
that every compiled method in that map, which HotSpot knows to be live, is in
the agent's jitdump with the same address, size and name and not unloaded
before the map was written. Code stubs are counted, not required (JVMTI names
only some of them, and differently).

usage: jvmti_oracle.py [--attach] AGENT JITSYM WORKDIR SOURCE MAIN_CLASS
--attach starts the JVM without the agent and loads it once the program is
warm (jcmd PID JVMTI.agent_load), so that what the agent knows of the code
compiled before comes from its GenerateEvents replay.
Prints counts for FileCheck and each missing method; exits 1 if any is missing.
"""
import os
import re
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import jitdump_records  # noqa: E402
from jvm import Jvm  # noqa: E402

# "long Hot.work(int)", "void java.lang.String.<init>(byte[], byte)": a return
# type, a dotted class and method, parameters. Stubs ("Interpreter",
# "StubRoutines (1)", "I2C/C2I adapters") have no such shape.
METHOD = re.compile(r"^\S+ \S+\.[^ (]+\(.*\)$")


def main():
    attach = sys.argv[1] == "--attach"
    agent, jitsym, workdir, source, main_class = sys.argv[1 + attach:6 + attach]
    os.makedirs(workdir, exist_ok=True)
    options = "dir=%s,quiet" % workdir
    jvm_args = [] if attach else ["-agentpath:%s=%s" % (agent, options)]
    with Jvm(source, main_class, workdir, jvm_args=jvm_args) as jvm:
        print("jvm ready")
        if attach:
            # jcmd would split "dir=..." into a name and a value: quoted, it passes as is.
            result = jvm.jcmd("JVMTI.agent_load", agent, '"%s"' % options)
            print("agent_load: " + " ".join(result.stdout.split()[1:]))
        before_map = time.monotonic_ns()  # CLOCK_MONOTONIC, as the agent's timestamps
        result = jvm.jcmd("Compiler.perfmap")
        perf_map = "/tmp/perf-%d.map" % jvm.pid
        if result.returncode != 0 or not os.path.exists(perf_map):
            sys.exit("error: jcmd Compiler.perfmap failed: %s%s" % (result.stdout, result.stderr))
        shutil.copyfile(perf_map, os.path.join(workdir, "hotspot.map"))
        # Loads reach the agent through HotSpot's service thread, a moment later.
        time.sleep(1)
        dump = os.path.join(workdir, "jit-%d.dump" % jvm.pid)
        shutil.copyfile(dump, os.path.join(workdir, "agent.dump"))
    print("jvm stopped")

    loads, unloads = jitdump_records.read(jitsym, os.path.join(workdir, "agent.dump"))
    live_then = set()
    for load in loads:
        if unloads.get(load["index"], before_map + 1) > before_map:
            live_then.add((load["address"], load["size"], load["name"]))
    ranges = {(a, s) for a, s, _ in live_then}

    methods = stubs = stubs_found = 0
    missing = []
    with open(os.path.join(workdir, "hotspot.map"), encoding="utf-8", errors="replace") as f:
        for line in f:
            address, size, name = line.rstrip("\n").split(" ", 2)
            entry = (int(address, 16), int(size, 16), name)
            if METHOD.match(name):
                methods += 1
                if entry not in live_then:
                    missing.append(line.rstrip("\n"))
            else:
                stubs += 1
                stubs_found += entry[:2] in ranges
    print("agent: %d CODE_LOAD, %d JITSYM_CODE_UNLOAD" % (len(loads), len(unloads)))
    print("methods: %d in HotSpot's map, %d in the agent's output with the same address, "
          "size and name" % (methods, methods - len(missing)))
    print("stubs: %d in HotSpot's map, %d at the same address and size in the agent's output"
          % (stubs, stubs_found))
    for line in missing:
        print("missing: " + line)
    sys.exit(1 if missing else 0)


if __name__ == "__main__":
    main()
