#!/usr/bin/python3
"""HotSpot as the oracle for the JVMTI agent: runs a program with the agent,
has HotSpot write its own perf map (jcmd PID Compiler.perfmap) and checks
that every compiled method in that map, which HotSpot knows to be live, is in
the agent's jitdump with the same address, size and name and not unloaded
before the map was written. Code stubs are counted, not required (JVMTI names
only some of them, and differently).

usage: jvmti_oracle.py [--attach] [--tier] AGENT JITSYM WORKDIR SOURCE MAIN_CLASS
--attach starts the JVM without the agent and loads it once the program is
warm (jcmd PID JVMTI.agent_load), so that what the agent knows of the code
compiled before comes from its GenerateEvents replay.
--tier gives the agent its `tier` option: names are compared without the
" [tier N]" it appends (HotSpot's map has none), and N with the level that
`jcmd PID Compiler.codelist` gives the nmethod whose code starts there.
Prints counts for FileCheck (how many of the methods are method-handle
intrinsics, which JVMTI alone names wrong, among them), each missing method
and each tier that differs; exits 1 if any.
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
# MethodHandle's intrinsics: one nmethod per erased signature, one jmethodID for all.
INTRINSIC = re.compile(r"^\S+ java\.lang\.invoke\.MethodHandle\.(invokeBasic|linkTo[A-Za-z]+)\(")
TIER = re.compile(r" \[tier (\d)\]$")
# Compiler.codelist: "ID LEVEL STATE NAME [BLOB, CODE_BEGIN - CODE_END]".
CODELIST = re.compile(r"^\d+\s+(\d)\s+\d+\s+.* \[0x[0-9a-f]+, (0x[0-9a-f]+) - 0x[0-9a-f]+\]$")


def main():
    args = sys.argv[1:]
    attach = tier = False
    while args and args[0] in ("--attach", "--tier"):
        attach |= args[0] == "--attach"
        tier |= args[0] == "--tier"
        args.pop(0)
    agent, jitsym, workdir, source, main_class = args[:5]
    os.makedirs(workdir, exist_ok=True)
    options = "dir=%s,quiet%s" % (workdir, ",tier" if tier else "")
    jvm_args = [] if attach else ["-agentpath:%s=%s" % (agent, options)]
    with Jvm(source, main_class, workdir, jvm_args=jvm_args) as jvm:
        print("jvm ready")
        if attach:
            # jcmd would split "dir=..." into a name and a value: quoted, it passes as is.
            result = jvm.jcmd("JVMTI.agent_load", agent, '"%s"' % options)
            print("agent_load: " + " ".join(result.stdout.split()[1:]))
        levels = {}  # code begin -> tier, of each nmethod HotSpot lists
        if tier:
            for line in jvm.jcmd("Compiler.codelist").stdout.splitlines():
                m = CODELIST.match(line.strip())
                if m:
                    levels[int(m.group(2), 16)] = int(m.group(1))
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
    agent_levels = {}  # code begin -> the agent's tier
    for load in loads:
        if unloads.get(load["index"], before_map + 1) > before_map:
            name = load["name"]
            m = TIER.search(name) if tier else None
            if m:
                name = name[:m.start()]
                agent_levels[load["address"]] = int(m.group(1))
            live_then.add((load["address"], load["size"], name))
    ranges = {(a, s) for a, s, _ in live_then}

    methods = stubs = stubs_found = intrinsics = listed = 0
    missing, tiers_differ = [], []
    with open(os.path.join(workdir, "hotspot.map"), encoding="utf-8", errors="replace") as f:
        for line in f:
            address, size, name = line.rstrip("\n").split(" ", 2)
            entry = (int(address, 16), int(size, 16), name)
            if METHOD.match(name):
                methods += 1
                intrinsics += bool(INTRINSIC.match(name))
                if entry not in live_then:
                    missing.append(line.rstrip("\n"))
                if entry[0] in levels:
                    listed += 1
                    if agent_levels.get(entry[0]) != levels[entry[0]]:
                        tiers_differ.append("%s: tier %s, the agent's %s" % (
                            line.rstrip("\n"), levels[entry[0]], agent_levels.get(entry[0])))
            else:
                stubs += 1
                stubs_found += entry[:2] in ranges
    print("agent: %d CODE_LOAD, %d JITSYM_CODE_UNLOAD" % (len(loads), len(unloads)))
    print("methods: %d in HotSpot's map, %d in the agent's output with the same address, "
          "size and name" % (methods, methods - len(missing)))
    print("stubs: %d in HotSpot's map, %d at the same address and size in the agent's output"
          % (stubs, stubs_found))
    print("intrinsics: %d of HotSpot's methods are MethodHandle's" % intrinsics)
    if tier:
        print("tiers: %d of HotSpot's methods in Compiler.codelist, %d with the agent's tier "
              "the same" % (listed, listed - len(tiers_differ)))
    for line in missing:
        print("missing: " + line)
    for line in tiers_differ:
        print("tier differs: " + line)
    sys.exit(1 if missing or tiers_differ else 0)


if __name__ == "__main__":
    main()
