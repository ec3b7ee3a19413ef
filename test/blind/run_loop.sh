#!/usr/bin/env bash
# The run-time loop on every case of a blind set, as a user would run it on
# a one-file project: torchalias check (SARIF), torchalias instrument into a
# new directory, a build of the copy with TorchAlias::runtime, one run, and
# torchalias report. Prints each case's report summary and the totals of
# confirmed, dismissed, not reached and not instrumented findings, by the
# case's KIND (see test/blind/README.md).
#   test/blind/run_loop.sh <set-dir> [case.cpp ...]
# BUILD_DIR (default build) has bin/torchalias and the runtime; WORK_DIR
# (default /tmp/torchalias-loop) keeps every file of the loop.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
set_dir=${1:?usage: run_loop.sh <set-dir> [case.cpp ...]}
shift
cases=("$@")
((${#cases[@]})) || cases=("$set_dir"/*.cpp)
build=${BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$PWD/$build
work=${WORK_DIR:-/tmp/torchalias-loop}
torchalias=$build/bin/torchalias
prefix=$work/prefix
torch_flags=(-std=c++17 -I/usr/include/torch/csrc/api/include -I/usr/include/python3.11)
mkdir -p "$work"
cmake --install "$build/runtime" --prefix "$prefix" >/dev/null || exit 2

declare -A total
failed=0
for case in "${cases[@]}"; do
  name=$(basename "$case" .cpp)
  kind=$(sed -n 's|^// KIND: *\([a-z-]*\).*|\1|p' "$case" | head -n 1)
  dir=$work/$name
  rm -rf "$dir"
  mkdir -p "$dir/project/src"
  cp "$case" "$dir/project/src/"
  printf '[{"directory": "%s", "file": "src/%s.cpp", "arguments": ["clang++", %s, "-c", "src/%s.cpp"]}]\n' \
    "$dir/project" "$name" "$(printf '"%s", ' "${torch_flags[@]}" | sed 's/, $//')" "$name" \
    >"$dir/project/compile_commands.json"
  status=0
  "$torchalias" check -p "$dir/project" --root "$dir/project" --quiet --pch-cache "$work/pch" \
    --format sarif --output "$dir/findings.sarif" 2>"$dir/check.log" || status=$?
  if ((status == 0)); then
    echo "$name ($kind): no finding"
    total[$kind:no-finding]=$((${total[$kind:no-finding]:-0} + 1))
    continue
  elif ((status != 1)); then
    echo "FAIL $name: torchalias check exited $status (see $dir/check.log)"; failed=1; continue
  fi
  if ! "$torchalias" instrument --findings "$dir/findings.sarif" -p "$dir/project" \
      --output-dir "$dir/instrumented" >"$dir/instrument.log" 2>&1; then
    echo "FAIL $name: torchalias instrument failed (see $dir/instrument.log)"; failed=1; continue
  fi
  if ! g++ "${torch_flags[@]}" -O0 -I"$prefix/include" "$dir/instrumented/src/$name.cpp" \
      -o "$dir/app" -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -ltorchalias_runtime \
      -ltorch -ltorch_cpu -lc10 -lpython3.11 -pthread 2>"$dir/build.log"; then
    echo "FAIL $name: the instrumented copy does not build (see $dir/build.log)"; failed=1; continue
  fi
  TORCHALIAS_MODE=log TORCHALIAS_REPORT="$dir/run.jsonl" timeout 120 "$dir/app" \
    >"$dir/run.log" 2>&1
  touch "$dir/run.jsonl"
  status=0
  "$torchalias" report --static "$dir/findings.sarif" --dynamic "$dir/run.jsonl" \
    --manifest "$dir/instrumented/torchalias-instrument.json" >"$dir/report.txt" 2>&1 || status=$?
  summary=$(grep -m1 '^torchalias report:' "$dir/report.txt")
  if ((status > 1)) || [[ -z $summary ]]; then
    echo "FAIL $name: torchalias report exited $status (see $dir/report.txt)"; failed=1; continue
  fi
  echo "$name ($kind): ${summary#torchalias report: }"
  for verdict in confirmed dismissed "not reached" "not instrumented"; do
    count=$(sed -n "s/.* \([0-9][0-9]*\) $verdict.*/\1/p" <<<"$summary")
    total[$kind:$verdict]=$((${total[$kind:$verdict]:-0} + ${count:-0}))
  done
done
echo
for kind in bug near-miss; do
  echo "$kind: ${total[$kind:confirmed]:-0} confirmed, ${total[$kind:dismissed]:-0} dismissed," \
    "${total[$kind:not reached]:-0} not reached, ${total[$kind:not instrumented]:-0} not instrumented" \
    "findings; ${total[$kind:no-finding]:-0} case(s) without a finding"
done
exit $failed
