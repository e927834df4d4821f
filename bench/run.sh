#!/usr/bin/env bash
# Reruns jitsym's benchmarks and prints the figures the issues ask for:
#  1. reading + indexing a 1M-line perf map vs `wc -l` on the same file (goal <= 5x)
#  2. incremental read of 1k lines appended after 1M
#  3. jit-sync inside LLDB (bench/sync_bench.py): 1k new after 1M, nothing new
# usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
export JITSYM_BENCH_DIR="${JITSYM_BENCH_DIR:-$(mktemp -d)}"
map="$JITSYM_BENCH_DIR/jitsym-bench-1m.map"
# The load and wc -l are timed back to back, four times, since this machine's
# speed drifts: the ratio is what the goal is about.
"$build/bin/jitsym-bench" --benchmark_counters_tabular=true
for i in 1 2 3 4; do
  load=$("$build/bin/jitsym-bench" --benchmark_filter=LoadMap --benchmark_format=csv 2>/dev/null |
         awk -F, '/BM_LoadMap1M/ {print $3}')
  start=$(date +%s%N)
  for _ in $(seq 20); do wc -l "$map" >/dev/null; done
  wc_us=$(( ($(date +%s%N) - start) / 20000 ))
  awk -v load="$load" -v wc="$wc_us" -v size="$(du -h "$map" | cut -f1)" 'BEGIN {
    printf "1M-line map (%s): load %.1f ms, wc -l %.1f ms (mean of 20), ratio %.1fx\n",
           size, load, wc / 1000, load / (wc / 1000) }'
done
echo
LLDB_DEBUGSERVER_PATH=/usr/lib/llvm-22/bin/lldb-server /usr/bin/python3 bench/sync_bench.py "$build"
rm -rf "$JITSYM_BENCH_DIR"
