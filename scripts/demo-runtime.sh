#!/usr/bin/env bash
# Runtime demo: install the runtime from BUILD_DIR (building it first if
# needed), build docs/examples/runtime against the installed package, run it
# with TORCHALIAS_MODE=warn and print the JSON Lines report.
#
#   scripts/demo-runtime.sh [BUILD_DIR]     (default: build)
#
# BUILD_DIR is the top-level build (runtime in BUILD_DIR/runtime) or a
# standalone runtime build; if it does not exist the runtime is configured
# there on its own.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build}"
[[ "$build" = /* ]] || build="$PWD/$build"
jobs="${JOBS:-2}"

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root/runtime" -B "$build" "${generator[@]}" \
    -DTORCHALIAS_RUNTIME_TESTS=OFF -DTORCHALIAS_RUNTIME_BENCH=OFF
fi
runtime_build="$build"
[[ -f "$build/runtime/cmake_install.cmake" ]] && runtime_build="$build/runtime"

targets=(torchalias_runtime)
[[ -d "$runtime_build/cuda/CMakeFiles/torchalias_runtime_cuda.dir" ]] &&
  targets+=(torchalias_runtime_cuda)
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

work="$build/runtime-demo"
rm -rf "$work"
cmake --install "$runtime_build" --prefix "$work/prefix" >/dev/null
cmake -S "$root/docs/examples/runtime" -B "$work/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j "$jobs"

report="$work/report.jsonl"
echo "== running runtime_demo with TORCHALIAS_MODE=warn TORCHALIAS_REPORT=$report"
TORCHALIAS_MODE=warn TORCHALIAS_REPORT="$report" "$work/build/runtime_demo"
echo "== report ($report)"
cat "$report"
confirmed=$(grep -c '"verdict":"confirmed"' "$report" || true)
echo "== $confirmed site(s) confirmed at run time"
[[ "$confirmed" -ge 1 ]]
