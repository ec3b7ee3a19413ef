#!/usr/bin/env bash
# GPU check for the runtime's CUDA part, in one go: build, run the CUDA
# fingerprint tests (which must not skip on a GPU machine), run the
# bandwidth benchmark. Logs go to $OUT when set (the device tool), else to
# the build directory.
#
#   test/gpu/run.sh [--build-only] [BUILD_DIR]     (default build-gpu)
#
# Needs the CUDA toolkit, xxHash and GoogleTest; not libtorch.
set -euo pipefail

build_only=0
if [[ "${1:-}" == "--build-only" ]]; then
  build_only=1
  shift
fi
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build-gpu}"
logs="${OUT:-$build}"
mkdir -p "$logs"

export CUDACXX="${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  >"$logs/gpu-configure.log" 2>&1 || { cat "$logs/gpu-configure.log"; exit 1; }
cmake --build "$build" -j "${JOBS:-2}" 2>&1 | tee "$logs/gpu-build.log"
if (( build_only )); then
  echo "gpu check: built (tests and benchmark not run)"
  exit 0
fi

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv \
  | tee "$logs/gpu-device.txt" || true
"$build/gpu_fingerprint_test" 2>&1 | tee "$logs/gpu-test.log"
if grep -q "SKIPPED" "$logs/gpu-test.log"; then
  echo "gpu check: FAILED: CUDA tests skipped on a machine meant to have a GPU"
  exit 1
fi
"$build/gpu_fingerprint_bench" "${MAX_MIB:-4096}" | tee "$logs/gpu-bench.md"
echo "gpu check: passed; benchmark table in $logs/gpu-bench.md"
