#!/usr/bin/python3
"""Runs a Java program until its hot method is JIT-compiled, has the JVM write
its perf map (jcmd PID Compiler.perfmap) and copies the map to OUT_MAP.

usage: hotspot_perfmap.py SOURCE.java MAIN_CLASS WORKDIR OUT_MAP NAME

The program gets two arguments, READY and STOP (files in WORKDIR): it writes
READY once warmed up and exits when STOP appears (or by itself after a while).
Prints one line per step for FileCheck, and the perf map lines whose name
contains NAME. The JVM is stopped (killed if need be) whatever happens, and
the /tmp/perf-PID.map it wrote is removed.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jvm import Jvm  # noqa: E402


def main():
    source, main_class, workdir, out_map, name = sys.argv[1:6]
    if os.path.exists(out_map):
        os.remove(out_map)
    with Jvm(source, main_class, workdir) as jvm:
        print("jvm ready")
        sys.stdout.flush()
        result = jvm.jcmd("Compiler.perfmap")
        print("jcmd: " + " ".join(result.stdout.split()[1:]))
        perf_map = "/tmp/perf-%d.map" % jvm.pid
        if result.returncode != 0 or not os.path.exists(perf_map):
            sys.exit("error: jcmd Compiler.perfmap wrote no %s: %s%s"
                     % (perf_map, result.stdout, result.stderr))
        shutil.copyfile(perf_map, out_map)
        with open(out_map, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        print("perf map: %d lines" % len(lines))
        for line in lines:
            if name in line:
                print("entry: " + line)
    print("jvm stopped")


if __name__ == "__main__":
    main()
