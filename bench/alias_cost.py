"""What names as users type them cost at the first jit-sync: N functions with
plain names against the same N with V8's decorated names, which each get a
second symbol under the typed name (core/symbols/RuntimeNames). tinyjit writes
N functions; before the sync, the map is rewritten with "JS:*NAME /path:L:C"
names for the decorated rounds. Rounds alternate; prints each and the medians.

usage: alias_cost.py BUILD_DIR [N] [ROUNDS]   (LLDB_DEBUGSERVER_PATH must be set)
"""
import os
import shutil
import statistics
import sys
import tempfile
import time

import lldb


def first_sync(build, n, decorated):
    work = tempfile.mkdtemp(prefix="jitsym-alias-cost-")
    try:
        os.environ["JITSYM_DIR"] = os.path.join(work, "private")
        map_path = os.path.join(work, "bench.map")
        debugger = lldb.SBDebugger.Create(False)
        debugger.SetAsync(False)
        interp = debugger.GetCommandInterpreter()
        result = lldb.SBCommandReturnObject()
        interp.HandleCommand("plugin load %s/lib/libjitsym-lldb.so" % build, result)
        interp.HandleCommand("jit-sync --auto off", result)
        target = debugger.CreateTarget(os.path.join(build, "bin", "tinyjit"))
        target.BreakpointCreateByName("jit_probe")
        process = target.LaunchSimple(["--bulk", str(n), "--phases", "1", "--map", map_path],
                                      None, work)
        if decorated:
            with open(map_path) as f:
                lines = f.read().splitlines()
            with open(map_path, "w") as f:
                for i, line in enumerate(lines):
                    address, size, name = line.split(" ", 2)
                    f.write("%s %s JS:*%s /srv/app/lib/module.js:%d:7\n"
                            % (address, size, name, i % 5000 + 1))
        start = time.perf_counter()
        interp.HandleCommand("jit-sync --map " + map_path, result)
        elapsed = (time.perf_counter() - start) * 1000
        if not result.Succeeded():
            sys.exit("alias_cost.py: " + (result.GetError() or "jit-sync failed"))
        interp.HandleCommand("image lookup -n jit_bulk_77", result)
        if "1 match" not in (result.GetOutput() or ""):
            sys.exit("alias_cost.py: jit_bulk_77 not found by its typed name")
        process.Kill()
        lldb.SBDebugger.Destroy(debugger)
        return elapsed
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    times = {"plain": [], "decorated": []}
    for _ in range(rounds):
        for kind in times:
            times[kind].append(first_sync(build, n, kind == "decorated"))
            print("%-9s %d functions: first jit-sync %.0f ms" % (kind, n, times[kind][-1]),
                  flush=True)
    plain, decorated = (statistics.median(times[k]) for k in ("plain", "decorated"))
    print("median: plain %.0f ms, decorated (each with its alias) %.0f ms, ratio %.2fx"
          % (plain, decorated, decorated / plain))


if __name__ == "__main__":
    main()
