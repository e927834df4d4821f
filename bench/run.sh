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
"$build/bin/jitsym-bench" --benchmark_counters_tabular=true
map="$JITSYM_BENCH_DIR/jitsym-bench-1m.map"
best=""
for i in 1 2 3 4 5; do
  t=$( { /usr/bin/time -f %e wc -l "$map" >/dev/null; } 2>&1 )
  [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ] && best=$t
done
echo "wc -l on the same 1M-line map ($(du -h "$map" | cut -f1)): best of 5 = ${best}s"
echo
LLDB_DEBUGSERVER_PATH=/usr/lib/llvm-22/bin/lldb-server /usr/bin/python3 bench/sync_bench.py "$build"
rm -rf "$JITSYM_BENCH_DIR"
