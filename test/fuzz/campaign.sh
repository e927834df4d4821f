#!/usr/bin/env bash
# A fuzzing campaign: every fuzz target in turn, one fuzzer process at a time
# at the lowest priority, each for SECONDS over a copy of its stored corpus,
# with its dictionary and the flags RunFuzzer.cmake uses (ctest's bounded runs).
# Prints a table of seconds, executions, corpus and coverage per target, and
# keeps each grown corpus, log and reproducer under OUT. Exits 1 if any target
# found something (a reproducer in OUT/NAME/artifacts).
#
#   test/fuzz/campaign.sh [-t SECONDS] [-b BUILD] [-o OUT] [--merge|--merge-only] [NAME...]
#
#   -t SECONDS  time per target (default 600)
#   -b BUILD    build directory holding test/fuzz/jitsym-fuzz-NAME (default build)
#   -o OUT      where corpora, logs and reproducers go (default BUILD/fuzz-campaign)
#   --merge     afterwards, merge each grown corpus into its stored corpus with
#               -merge=1: the stored seeds stay, an input is added only when it
#               brings coverage they lack (files named by their SHA-1)
#   --merge-only  the same for the corpora an earlier run left in OUT, no fuzzing
#   NAME...     targets to run (default: every jitsym-fuzz-* in BUILD)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

seconds=600 build=build out="" merge=0 run=1 names=()
while (($#)); do
  case "$1" in
  -t) seconds=$2; shift 2 ;;
  -b) build=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  --merge) merge=1; shift ;;
  --merge-only) merge=1 run=0; shift ;;
  -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "campaign.sh: unknown option $1" >&2; exit 2 ;;
  *) names+=("$1"); shift ;;
  esac
done
out=${out:-$build/fuzz-campaign}
mkdir -p "$out"
out=$(cd "$out" && pwd)
if ((${#names[@]} == 0)); then
  for binary in "$build"/test/fuzz/jitsym-fuzz-*; do
    [ -x "$binary" ] && names+=("${binary##*/jitsym-fuzz-}")
  done
fi
if ((${#names[@]} == 0)); then
  echo "campaign.sh: no fuzz targets in $build/test/fuzz (build them first)" >&2
  exit 2
fi

# Inputs longer than RunFuzzer.cmake's 4096 bytes where the stored seeds are
# (core files; jitdumps with several records).
max_len() {
  case "$1" in
  corefile) echo 16384 ;;
  jitdump|readers) echo 8192 ;;
  *) echo 4096 ;;
  esac
}

count_files() { find "$1" -maxdepth 1 -type f | wc -l; }
count_bytes() { find "$1" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

summary=$out/summary.tsv
((run)) && printf 'target\twall_s\tcpu_s\texecutions\tcov\tft\tseed_files\tseed_bytes\tcorpus_files\tcorpus_bytes\tfindings\n' >"$summary"
found=0
((run)) && for name in "${names[@]}"; do
  binary=$root/$build/test/fuzz/jitsym-fuzz-$name
  seeds=$root/test/fuzz/corpus/$name
  dict=$root/test/fuzz/$name.dict
  [ -x "$binary" ] || { echo "campaign.sh: $binary not built" >&2; exit 2; }
  work=$out/$name
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp "$seeds"/* "$work/corpus/"
  args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 -max_len="$(max_len "$name")"
        -print_final_stats=1 -artifact_prefix="$work/artifacts/")
  [ -f "$dict" ] && args+=(-dict="$dict")
  echo "campaign: $name for ${seconds}s" >&2
  start=$(date +%s)
  # -f: CPU seconds (user + system) of the fuzzer, on the log's last line.
  (cd "$work" && /usr/bin/time -f 'cpu_seconds %U %S' \
     nice -n 19 "$binary" "${args[@]}" "$work/corpus" >"$work/log" 2>&1) || true
  wall=$(($(date +%s) - start))
  cpu=$(awk '/^cpu_seconds/ {printf "%.0f", $2 + $3}' "$work/log")
  executions=$(awk '/stat::number_of_executed_units/ {print $2}' "$work/log")
  # A log cut short (a full disk, a killed fuzzer) still has the last "#N DONE".
  [ -n "$executions" ] || executions=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$work/log" | tail -1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -1 || true)
  findings=$(count_files "$work/artifacts")
  ((findings == 0)) || found=1
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$wall" "${cpu:-?}" \
    "${executions:-?}" "$(echo "$cov" | awk '{print $2}')" "$(echo "$cov" | awk '{print $4}')" \
    "$(count_files "$seeds")" "$(count_bytes "$seeds")" \
    "$(count_files "$work/corpus")" "$(count_bytes "$work/corpus")" "$findings" >>"$summary"
done

if ((merge)); then
  for name in "${names[@]}"; do
    binary=$root/$build/test/fuzz/jitsym-fuzz-$name
    seeds=$root/test/fuzz/corpus/$name
    merged=$out/$name/merged
    [ -d "$out/$name/corpus" ] || { echo "campaign.sh: no corpus in $out/$name" >&2; exit 2; }
    rm -rf "$merged"
    mkdir -p "$merged"
    cp "$seeds"/* "$merged/"
    nice -n 19 "$binary" -merge=1 -rss_limit_mb=2048 -timeout=25 -max_len="$(max_len "$name")" \
      "$merged" "$out/$name/corpus" >"$out/$name/merge.log" 2>&1
    rm -f "$seeds"/*
    cp "$merged"/* "$seeds/"
    echo "campaign: $name: stored corpus now $(count_files "$seeds") files, $(count_bytes "$seeds") bytes" >&2
  done
fi

[ -f "$summary" ] && column -t -s $'\t' "$summary"
exit $found
