#!/usr/bin/env python3
"""Runs a Node script with --perf-prof and --perf-basic-prof, then checks what
jitsym reads from the jitdump against Node's own perf map of the same run, and
looks up an optimized function's code for its source line.

usage: node_jitdump.py JITSYM SCRIPT.js FUNCTION
Prints counts and the lookup for FileCheck; removes the files Node wrote.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def main():
    jitsym, script, function = sys.argv[1:4]
    # Node runs in a scratch directory (where it writes the dump).
    jitsym, script = os.path.abspath(jitsym), os.path.abspath(script)
    with tempfile.TemporaryDirectory() as cwd:
        subprocess.run(["node", "--perf-prof", "--perf-basic-prof",
                        "--interpreted-frames-native-stack", script],
                       cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        dumps = glob.glob(os.path.join(cwd, "jit-*.dump"))
        if len(dumps) != 1:
            sys.exit(f"expected one jit-PID.dump in {cwd}, found {dumps}")
        dump = dumps[0]
        pid = re.search(r"jit-(\d+)\.dump$", dump).group(1)
        perf_map = f"/tmp/perf-{pid}.map"
        try:
            text = subprocess.run([jitsym, "dump", dump], check=True,
                                  capture_output=True, text=True).stdout
            loads = re.findall(r'CODE_LOAD .* code_addr (0x[0-9a-f]+) code_size (0x[0-9a-f]+)'
                               r' code_index \d+ name "(.*)"$', text, re.M)
            with open(perf_map, encoding="utf-8", errors="replace") as f:
                mapped = set()
                for line in f:
                    address, size, name = line.rstrip("\n").split(" ", 2)
                    mapped.add((int(address, 16), int(size, 16), name))
            missing = [l for l in loads if (int(l[0], 16), int(l[1], 16), l[2]) not in mapped]
            print(f"jitdump loads: {len(loads)}, map lines: {len(mapped)}, "
                  f"loads missing from the map: {len(missing)}")
            for address, size, name in missing[:5]:
                print(f"  missing: {address} {size} {name}")
            print("debug records:", len(re.findall(r"CODE_DEBUG_INFO", text)))
            optimized = [l for l in loads if l[2].startswith(f"JS:*{function} ")]
            if not optimized:
                sys.exit(f"no optimized code for {function} in {dump}")
            start = int(optimized[-1][0], 16)
            size = int(optimized[-1][1], 16)
            lookup = subprocess.run([jitsym, "lookup", dump, hex(start), hex(start + size // 2)],
                                    check=True, capture_output=True, text=True).stdout
            print(lookup, end="")
        finally:
            if os.path.exists(perf_map):
                os.unlink(perf_map)


if __name__ == "__main__":
    main()
