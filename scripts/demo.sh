#!/usr/bin/env bash
# The README's demo command: builds torchalias, runs the libtorch checks over
# the bundled example project (docs/examples), shows the fix-its applied to a
# scratch copy, then the run-time loop that confirms or dismisses each
# finding (scripts/demo-instrument.sh), then the runtime's hand-written
# validators (scripts/demo-runtime.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh" >/dev/null
LLVM_VERSION=${TORCHALIAS_LLVM_VERSION:-19}
plugin="$build/lib/TorchAliasTidyPlugin.so"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp -r "$root/docs/examples" "$scratch/examples"
cmake -S "$scratch/examples" -B "$scratch/examples/build" -G Ninja \
  -DCMAKE_CXX_COMPILER="clang++-$LLVM_VERSION" >/dev/null
sources=("$scratch"/examples/src/*.cpp)

echo "== 1. Diagnostics: clang-tidy-$LLVM_VERSION --load=$(basename "$plugin") -checks='-*,libtorch-*'"
status=0
"clang-tidy-$LLVM_VERSION" --load="$plugin" --checks='-*,libtorch-*' \
  -p "$scratch/examples/build" "${sources[@]}" 2>/dev/null | sed "s|$scratch/||g" || status=$?
echo "(clang-tidy exit status: $status)"

echo
echo "== 2. Fix-its: the same run through torchalias-tidy --fix, as a diff"
cp -r "$scratch/examples/src" "$scratch/original"
"$build/bin/torchalias-tidy" --checks='-*,libtorch-*' --fix --quiet \
  -p "$scratch/examples/build" "${sources[@]}" >/dev/null 2>&1 || true
(cd "$scratch" && diff -ru original examples/src) || true

echo
echo "== 3. Run-time verdicts: torchalias check, instrument, build, run (contiguous and"
echo "      transposed batch), torchalias report"
"$root/scripts/demo-instrument.sh" "$build" | sed "s|$build/||g"

echo
echo "== 4. The runtime's hand-written validators (TorchAlias::runtime, TORCHALIAS_MODE=warn)"
"$root/scripts/demo-runtime.sh" "$build"
