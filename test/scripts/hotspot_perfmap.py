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
import subprocess
import sys
import time


def wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def main():
    source, main_class, workdir, out_map, name = sys.argv[1:6]
    java, jcmd, javac = (shutil.which(t) for t in ("java", "jcmd", "javac"))
    os.makedirs(workdir, exist_ok=True)
    ready = os.path.join(workdir, "ready")
    stop = os.path.join(workdir, "stop")
    for path in (ready, stop, out_map):
        if os.path.exists(path):
            os.remove(path)

    if javac:
        subprocess.run([javac, "-d", workdir, source], check=True)
        command = [java, "-cp", workdir, main_class, ready, stop]
    else:  # JDK 11+ runs a single source file directly
        command = [java, source, ready, stop]
    jvm = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    perf_map = "/tmp/perf-%d.map" % jvm.pid
    try:
        if not wait_for(lambda: os.path.exists(ready) or jvm.poll() is not None, 20):
            sys.exit("error: the JVM did not warm up within 20 s")
        if jvm.poll() is not None:
            sys.exit("error: the JVM exited early with status %d" % jvm.returncode)
        print("jvm ready")
        sys.stdout.flush()
        result = subprocess.run([jcmd, str(jvm.pid), "Compiler.perfmap"],
                                capture_output=True, text=True, timeout=20)
        print("jcmd: " + " ".join(result.stdout.split()[1:]))
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
    finally:
        open(stop, "w").close()
        try:
            jvm.wait(timeout=10)
        except subprocess.TimeoutExpired:
            jvm.kill()
            jvm.wait()
        if os.path.exists(perf_map):
            os.remove(perf_map)
    print("jvm stopped")


if __name__ == "__main__":
    main()
