#!/usr/bin/python3
"""Class unloading frees compiled code: runs Unloader.java with the JVMTI
agent (its Payload class is loaded, compiled, then unloaded) and checks, with
the dump the agent wrote, that every compiled copy of Payload.spin got a
JITSYM_CODE_UNLOAD and that `jitsym lookup` no longer names it (or names the
code that reused the range).

usage: jvmti_unload.py AGENT JITSYM WORKDIR SOURCE
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import jitdump_records  # noqa: E402
from jvm import Jvm  # noqa: E402

NAME = "long Unloader$Payload.spin(int)"


def main():
    agent, jitsym, workdir, source = sys.argv[1:5]
    with Jvm(source, "Unloader", workdir, stdout=subprocess.PIPE,
             jvm_args=["-agentpath:%s=dir=%s,quiet" % (agent, workdir)]) as jvm:
        dump = os.path.join(workdir, "unload.dump")
        shutil.copyfile(os.path.join(workdir, "jit-%d.dump" % jvm.pid), dump)
    # What the program says: "compiled SUM", then "unloaded" (or "still loaded").
    print(" ".join(line.split(" ")[0] for line in jvm.process.stdout.read().decode().splitlines()))
    loads, unloads = jitdump_records.read(jitsym, dump)
    spins = [load for load in loads if load["name"] == NAME]
    freed = [load for load in spins if load["index"] in unloads]
    print("%s: %d compiled, %d unloaded" % (NAME, len(spins), len(freed)))
    for load in spins:
        address = "0x%x" % load["address"]
        out = subprocess.run([jitsym, "lookup", dump, address], capture_output=True,
                             text=True).stdout.strip()
        later = [other["name"] for other in loads
                 if other["index"] > load["index"] and
                 other["address"] <= load["address"] < other["address"] + other["size"]]
        state = "freed" if load["index"] in unloads else "live"
        print("%s %s: lookup says %s%s" % (state, "reused" if later else "unused",
                                           out.split(" ", 1)[1] if " " in out else out,
                                           "" if not later else ", last code there: " + later[-1]))


if __name__ == "__main__":
    main()
