#!/usr/bin/env bash
# Runs the site-cost tables of torchalias_runtime_bench RUNS times and
# prints each table once more with the median of every column over the
# runs (each run's figure is itself a median of 11 timings).
#
#   runtime/bench/site-medians.sh [BUILD_DIR] [RUNS]   (defaults: build-rt, 5)
set -euo pipefail
build="${1:-build-rt}"
runs="${2:-5}"
bench="$build/bench/torchalias_runtime_bench"
[[ -x "$build/runtime/bench/torchalias_runtime_bench" ]] &&
  bench="$build/runtime/bench/torchalias_runtime_bench"
outputs=()
for ((i = 0; i < runs; ++i)); do
  outputs+=("$("$bench" --sites-only)")
done
printf '%s\0' "${outputs[@]}" | python3 -c '
import statistics, sys
runs = [run.splitlines() for run in sys.stdin.read().split("\0") if run]
print(f"Medians over {len(runs)} runs.\n")
for lines in zip(*runs):
    if not lines[0].startswith("| ") or lines[0].startswith("| what"):
        print(lines[0])
        continue
    rows = [line.split("|") for line in lines]
    merged = rows[0]
    for column in range(3, len(merged) - 1):
        text = merged[column].strip()
        decimals = len(text.split(".")[1]) if "." in text else 0
        median = statistics.median(float(row[column]) for row in rows)
        merged[column] = " %.*f " % (decimals, median)
    print("|".join(merged))
'
