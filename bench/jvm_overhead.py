#!/usr/bin/python3
"""The JVMTI agent's overhead: JVM startup (a one-round run of Throughput, wall
time) and steady-state throughput (rounds/s after warm-up), without the agent
and with it (default options, and with perfmap,tier). Runs alternate between
configurations so that drift of this machine's speed hits all alike; medians
are compared. Goal: at most 5% either way.

usage: bench/jvm_overhead.py AGENT [STARTUP_RUNS THROUGHPUT_RUNS SECONDS]
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    agent = sys.argv[1]
    startup_runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    throughput_runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    seconds = sys.argv[4] if len(sys.argv) > 4 else "5"
    work = tempfile.mkdtemp(prefix="jitsym-jvm-bench-")
    subprocess.run(["javac", "-d", work, os.path.join(HERE, "java", "Throughput.java")],
                   check=True)
    configs = [("no agent", []),
               ("agent", ["-agentpath:%s=dir=%s,quiet" % (agent, work)]),
               ("agent perfmap,tier",
                ["-agentpath:%s=dir=%s,perfmap,tier,quiet" % (agent, work)])]

    def run(extra, arg):
        start = time.monotonic()
        jvm = subprocess.Popen(["java"] + extra + ["-cp", work, "Throughput", arg],
                               stdout=subprocess.PIPE, text=True)
        out = jvm.communicate()[0]
        elapsed = time.monotonic() - start
        if jvm.returncode != 0:
            sys.exit("error: java exited with status %d" % jvm.returncode)
        perf_map = "/tmp/perf-%d.map" % jvm.pid  # option perfmap
        if os.path.exists(perf_map):
            os.remove(perf_map)
        return elapsed, out

    startup = {name: [] for name, _ in configs}
    for _ in range(startup_runs):
        for name, extra in configs:
            startup[name].append(run(extra, "0")[0] * 1000)
    throughput = {name: [] for name, _ in configs}
    for _ in range(throughput_runs):
        for name, extra in configs:
            out = run(extra, seconds)[1]
            throughput[name].append(float(out.split()[1]))
    for path in os.listdir(work):  # dumps and maps of every run
        if path.startswith("jit-"):
            os.remove(os.path.join(work, path))

    base_start = statistics.median(startup["no agent"])
    base_tput = statistics.median(throughput["no agent"])
    print("startup (median of %d runs, ms) and throughput (median of %d runs of %s s, rounds/s):"
          % (startup_runs, throughput_runs, seconds))
    for name, _ in configs:
        s = statistics.median(startup[name])
        t = statistics.median(throughput[name])
        print("  %-20s startup %7.1f ms (%+5.1f%%)  throughput %9.0f (%+5.1f%%)  [%s .. %s]"
              % (name, s, (s / base_start - 1) * 100, t, (t / base_tput - 1) * 100,
                 "%.0f" % min(throughput[name]), "%.0f" % max(throughput[name])))


if __name__ == "__main__":
    main()
