#!/usr/bin/env bash
# Builds the runtime benchmarks and prints their markdown tables.
#
#   runtime/bench/run-benchmarks.sh [BUILD_DIR] [MAX_MIB]
#                                   (defaults: build-rt, 1024)
#
# The CUDA benchmark runs too when the CUDA part was built; without a GPU
# it says so and is skipped. For the GPU machine use test/gpu/run.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-build-rt}"
max_mib="${2:-1024}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root/runtime" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DTORCHALIAS_RUNTIME_TESTS=OFF
fi
bench_dir="$build/bench"
[[ -d "$build/runtime/bench" ]] && bench_dir="$build/runtime/bench"
targets=(torchalias_runtime_bench)
[[ -d "$bench_dir/CMakeFiles/torchalias_cuda_bench.dir" ]] &&
  targets+=(torchalias_cuda_bench)
cmake --build "$build" -j "${JOBS:-2}" --target "${targets[@]}" >/dev/null
"$bench_dir/torchalias_runtime_bench" "$max_mib"
if [[ -x "$bench_dir/torchalias_cuda_bench" ]]; then
  "$bench_dir/torchalias_cuda_bench"
fi
