#!/usr/bin/python3
"""The JVMTI agent's overhead: JVM startup (a one-round run of Throughput, wall
and CPU time) and steady-state throughput (rounds/s after warm-up), without
the agent and with it (default options, and with perfmap,tier).

This machine's speed drifts by more than the effect measured, so runs go in
rounds (one run of each configuration per round, in rotating order) and each
agent run is compared with the agent-less run of its own round: the figure
is the median of those paired ratios, with a 95% bootstrap interval over
the rounds (how far the figure itself is from certain). Goal: at most 5%
either way.

usage: bench/jvm_overhead.py AGENT [STARTUP_RUNS THROUGHPUT_RUNS SECONDS]
"""
import os
import random
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
        """Wall ms, CPU ms (user + system, all threads) and stdout of one run."""
        start = time.monotonic()
        jvm = subprocess.Popen(["java"] + extra + ["-cp", work, "Throughput", arg],
                               stdout=subprocess.PIPE, text=True)
        out = jvm.stdout.read()
        _, status, usage = os.wait4(jvm.pid, 0)
        elapsed = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("error: java exited with status %d" % os.waitstatus_to_exitcode(status))
        perf_map = "/tmp/perf-%d.map" % jvm.pid  # option perfmap
        if os.path.exists(perf_map):
            os.remove(perf_map)
        return elapsed * 1000, (usage.ru_utime + usage.ru_stime) * 1000, out

    def rounds(count, arg):
        results = {name: [] for name, _ in configs}
        for i in range(count):
            for name, extra in configs[i % len(configs):] + configs[:i % len(configs)]:
                results[name].append(run(extra, arg))
        return results

    startup = rounds(startup_runs, "0")
    throughput = {name: [float(out.split()[1]) for _, _, out in runs]
                  for name, runs in rounds(throughput_runs, seconds).items()}
    for path in os.listdir(work):  # dumps and maps of every run
        if path.startswith("jit-"):
            os.remove(os.path.join(work, path))

    def paired(name, values):
        """Median over rounds of (this configuration / no agent) - 1, in %, and
        its 95% bootstrap interval, as text."""
        ratios = [(v / b - 1) * 100 for v, b in zip(values[name], values["no agent"])]
        draw = random.Random(0)
        medians = sorted(statistics.median(draw.choices(ratios, k=len(ratios)))
                         for _ in range(1000))
        return "%+5.1f%% [%+.1f, %+.1f]" % (statistics.median(ratios), medians[25], medians[974])

    wall = {name: [r[0] for r in runs] for name, runs in startup.items()}
    cpu = {name: [r[1] for r in runs] for name, runs in startup.items()}
    print("startup: medians of %d rounds (ms); throughput: medians of %d rounds of %s s "
          "(rounds/s); %% against the run without agent of the same round:"
          % (startup_runs, throughput_runs, seconds))
    for name, _ in configs:
        print("  %-20s startup wall %6.1f %s  cpu %6.1f %s  throughput %8.0f %s"
              % (name, statistics.median(wall[name]), paired(name, wall),
                 statistics.median(cpu[name]), paired(name, cpu),
                 statistics.median(throughput[name]), paired(name, throughput)))


if __name__ == "__main__":
    main()
