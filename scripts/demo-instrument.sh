#!/usr/bin/env bash
# The run-time loop on the bundled example (docs/examples), end to end:
# torchalias check, torchalias instrument, a build of the instrumented copy
# with TorchAlias::runtime, two runs (a contiguous batch, then a transposed
# one) and torchalias report over each run and over both.
#
#   scripts/demo-instrument.sh [BUILD_DIR]     (default: build)
#
# It fails unless augment.cpp's may-alias reshape finding is confirmed by the
# contiguous run, dismissed by the transposed one (reshape() copies it) and
# confirmed over both runs. WORK_DIR (default BUILD_DIR/instrument-demo)
# keeps every file of the loop.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
[[ "$build" = /* ]] || build="$PWD/$build"
work=${WORK_DIR:-$build/instrument-demo}
jobs=${JOBS:-2}
compiler=clang++-${TORCHALIAS_LLVM_VERSION:-19}
torchalias="$build/bin/torchalias"
reshape="src/augment.cpp:22:8"

rm -rf "$work"
mkdir -p "$work"
cmake --build "$build" -j "$jobs" --target torchalias torchalias_runtime >/dev/null
cmake --install "$build/runtime" --prefix "$work/prefix" >/dev/null
cp -r "$root/docs/examples" "$work/example"
cmake -S "$work/example" -B "$work/example/build" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" >/dev/null

echo "-- torchalias check: findings as SARIF"
status=0
"$torchalias" check -p "$work/example/build" --root "$work/example" --quiet \
  --format sarif --output "$work/findings.sarif" || status=$?
[[ $status -eq 1 ]] || { echo "expected findings (exit 1), got exit $status"; exit 1; }

echo "-- torchalias instrument: a copy with a validator at each finding"
"$torchalias" instrument --findings "$work/findings.sarif" -p "$work/example/build" \
  --output-dir "$work/instrumented"
(cd "$work" && diff -u example/src/augment.cpp instrumented/src/augment.cpp) || true

echo "-- building the copy with TorchAlias::runtime (CMAKE_PROJECT_INCLUDE, CMakeLists.txt unchanged)"
cmake -S "$work/instrumented" -B "$work/instrumented/build" -G Ninja \
  -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_PROJECT_INCLUDE="$work/prefix/lib/cmake/TorchAlias/TorchAliasInstrument.cmake" >/dev/null
cmake --build "$work/instrumented/build" -j "$jobs" >/dev/null

for layout in contiguous transposed; do
  echo "-- running train ($layout batch), TORCHALIAS_REPORT=$layout.jsonl"
  args=()
  [[ $layout == transposed ]] && args=(transposed)
  TORCHALIAS_MODE=log TORCHALIAS_REPORT="$work/$layout.jsonl" \
    "$work/instrumented/build/train" "${args[@]}" >"$work/$layout.out"
done

verdict() { # the verdict line of the reshape finding in report $1
  grep "^$reshape: " "$1" | cut -d' ' -f2
}
report() { # name, then the record files
  local name=$1
  shift
  local files
  files=$(IFS=,; echo "$*")
  status=0
  "$torchalias" report --static "$work/findings.sarif" --dynamic "$files" \
    --manifest "$work/instrumented/torchalias-instrument.json" \
    --output "$work/$name.sarif" >"$work/$name.txt" || status=$?
  [[ $status -le 1 ]] || { cat "$work/$name.txt"; exit 1; }
}
report contiguous "$work/contiguous.jsonl"
report transposed "$work/transposed.jsonl"
report both "$work/contiguous.jsonl" "$work/transposed.jsonl"
echo "-- torchalias report over both runs"
sed "s|$work/||g" "$work/both.txt"

echo
echo "-- the reshape finding ($reshape):"
ok=1
for expect in contiguous:confirmed transposed:dismissed both:confirmed; do
  name=${expect%%:*} want=${expect#*:} got=$(verdict "$work/$name.txt")
  mark="ok  "
  [[ "$got" == "$want" ]] || { mark="FAIL"; ok=0; }
  echo "$mark $name run(s): $got (expected $want)"
done
(( ok ))
