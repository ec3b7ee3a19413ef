#!/usr/bin/env bash
# Builds and runs every case of a blind set against libtorch, and checks that
# each bug case shows its harm (a line starting HARM:) and each near-miss
# does not (see test/blind/README.md).
#   test/blind/run_cases.sh <set-dir> [case.cpp ...]
set -uo pipefail
set_dir=${1:?usage: run_cases.sh <set-dir> [case.cpp ...]}
shift
cases=("$@")
((${#cases[@]})) || cases=("$set_dir"/*.cpp)
out=${BLIND_BUILD:-/tmp/torchalias-blind}
mkdir -p "$out"
failed=0
for case in "${cases[@]}"; do
  name=$(basename "$case" .cpp)
  kind=$(sed -n 's|^// KIND: *\([a-z-]*\).*|\1|p' "$case" | head -n 1)
  if [[ $kind != bug && $kind != near-miss ]]; then
    echo "FAIL $name: no '// KIND: bug' or '// KIND: near-miss' line"; failed=1; continue
  fi
  # torch/extension.h (pybind11 bindings) needs Python's headers and library.
  if ! g++ -std=c++17 -O0 -I/usr/include/torch/csrc/api/include -I/usr/include/python3.11 \
      "$case" -o "$out/$name" -ltorch -ltorch_cpu -lc10 -lpython3.11 -pthread \
      2>"$out/$name.build.log"; then
    echo "FAIL $name: does not build (see $out/$name.build.log)"; failed=1; continue
  fi
  timeout 120 "$out/$name" >"$out/$name.run.log" 2>&1
  rc=$?
  harm=$(grep -m1 '^HARM:' "$out/$name.run.log")
  if ((rc != 0)); then
    echo "FAIL $name: exit status $rc (see $out/$name.run.log)"; failed=1
  elif [[ $kind == bug && -z $harm ]]; then
    echo "FAIL $name: a bug case that shows no HARM: line"; failed=1
  elif [[ $kind == near-miss && -n $harm ]]; then
    echo "FAIL $name: a near-miss that shows harm: $harm"; failed=1
  else
    echo "ok   $name ($kind)${harm:+: $harm}"
  fi
done
exit $failed
