#!/usr/bin/python3
"""The JVMTI agent's overhead on three workloads, without the agent and with
it (default options, and with perfmap,tier):

  startup     one round of bench/java/Throughput (a near-empty program: the
              JVM's own start and exit, ~50 ms), wall and CPU time
  javac       javac compiling Throughput.java (a real application's start,
              with ~1500 methods compiled in ~0.6 s), wall and CPU time
  throughput  rounds/s of Throughput after warm-up (steady state)

A fourth configuration, "HotSpot's events", runs libjitsym-bench-jvmti-floor.so
(built next to the agent): the same JVMTI events, enabled at the same moments,
with callbacks that do nothing. That is what HotSpot itself charges any agent
built on CompiledMethodLoad and DynamicCodeGenerated; the agent's own cost is
the difference.

This machine's speed drifts by more than the effect measured, so runs go in
rounds (one run of each configuration per round, in rotating order) and each
run is compared with the agent-less run of its own round: the figure is the
median of those paired ratios, with a 95% bootstrap interval over the rounds
(how far the figure itself is from certain). Goal: at most 5% either way.

usage: bench/jvm_overhead.py AGENT [STARTUP_RUNS JAVAC_RUNS THROUGHPUT_RUNS SECONDS]
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def paired(values, baseline):
    """Median over rounds of (value / the same round's baseline) - 1, in %, and
    its 95% bootstrap interval, as text."""
    ratios = [(v / b - 1) * 100 for v, b in zip(values, baseline)]
    draw = random.Random(0)
    medians = sorted(statistics.median(draw.choices(ratios, k=len(ratios)))
                     for _ in range(1000))
    return "%+5.1f%% [%+.1f, %+.1f]" % (statistics.median(ratios), medians[25], medians[974])


def main():
    agent = os.path.abspath(sys.argv[1])
    counts = [int(a) for a in sys.argv[2:5]] + [15, 10, 5][len(sys.argv[2:5]):]
    startup_runs, javac_runs, throughput_runs = counts
    seconds = sys.argv[5] if len(sys.argv) > 5 else "5"
    floor = os.path.join(os.path.dirname(agent), "libjitsym-bench-jvmti-floor.so")
    work = tempfile.mkdtemp(prefix="jitsym-jvm-bench-")
    source = os.path.join(HERE, "java", "Throughput.java")
    subprocess.run(["javac", "-d", work, source], check=True)
    configs = [("no agent", []),
               ("HotSpot's events", ["-agentpath:" + floor] if os.path.exists(floor) else None),
               ("agent", ["-agentpath:%s=dir=%s,quiet" % (agent, work)]),
               ("agent perfmap,tier", ["-agentpath:%s=dir=%s,perfmap,tier,quiet" % (agent, work)])]
    configs = [(name, options) for name, options in configs if options is not None]

    def run(command):
        """Wall ms, CPU ms (user + system, all threads) and stdout of one run."""
        start = time.monotonic()
        jvm = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        out = jvm.stdout.read()
        _, status, usage = os.wait4(jvm.pid, 0)
        elapsed = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("error: %s exited with status %d"
                     % (command[0], os.waitstatus_to_exitcode(status)))
        perf_map = "/tmp/perf-%d.map" % jvm.pid  # option perfmap
        if os.path.exists(perf_map):
            os.remove(perf_map)
        return elapsed * 1000, (usage.ru_utime + usage.ru_stime) * 1000, out

    def rounds(count, command):
        """{configuration: [run(command(its JVM options))] * count}"""
        results = {name: [] for name, _ in configs}
        for i in range(count):
            for name, options in configs[i % len(configs):] + configs[:i % len(configs)]:
                results[name].append(run(command(options)))
        return results

    startup = rounds(startup_runs, lambda options: ["java"] + options +
                     ["-cp", work, "Throughput", "0"])
    javac = rounds(javac_runs, lambda options: ["javac"] + ["-J" + o for o in options] +
                   ["-d", work, source])
    throughput = rounds(throughput_runs, lambda options: ["java"] + options +
                        ["-cp", work, "Throughput", seconds])
    for path in os.listdir(work):  # dumps and maps of every run
        if path.startswith("jit-"):
            os.remove(os.path.join(work, path))

    print("medians of the runs; % against the run without agent of the same round "
          "[95% interval]")
    for title, results in (("startup (%d rounds)" % startup_runs, startup),
                           ("javac (%d rounds)" % javac_runs, javac)):
        print(title + ":")
        for kind, column in (("wall ms", 0), ("CPU ms", 1)):
            base = [r[column] for r in results["no agent"]]
            for name, _ in configs[1:]:
                values = [r[column] for r in results[name]]
                print("  %-7s %-20s %7.1f (no agent %7.1f)  %s"
                      % (kind, name, statistics.median(values), statistics.median(base),
                         paired(values, base)))
    print("throughput (%d rounds of %s s, rounds/s):" % (throughput_runs, seconds))
    base = [float(r[2].split()[1]) for r in throughput["no agent"]]
    for name, _ in configs[1:]:
        values = [float(r[2].split()[1]) for r in throughput[name]]
        print("  %-28s %7.0f (no agent %7.0f)  %s"
              % (name, statistics.median(values), statistics.median(base), paired(values, base)))


if __name__ == "__main__":
    main()
