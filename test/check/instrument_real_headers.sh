#!/usr/bin/env bash
# Every real-header test file (test/real/*.cpp), instrumented, compiles
# against Debian's libtorch and the runtime's <torchalias/instrument.h>: the
# findings of torchalias check are instrumented into a copy, and each copy
# is compiled with -Wall -Werror. It fails if a file does not compile, if a
# file gets no validator although not all its findings were skipped, or if a
# site is skipped other than for a reason listed in ALLOWED_SKIPS below.
#
# usage: instrument_real_headers.sh TORCHALIAS RUNTIME_INCLUDE CLANGXX WORK_DIR FLAGS
#   FLAGS: the real-header flags of the lit suite, one argument
set -euo pipefail
torchalias=$(realpath "$1") runtime_include=$(realpath "$2") clangxx=$3 work=$4
read -r -a flags <<<"$5"
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work/project/src"
cp "$here"/../real/*.cpp "$work/project/src/"
printf "Checks: '-*,libtorch-*'\n" >"$work/project/.clang-tidy" # not the repository's
cd "$work/project"
python3 - "$work/project" "${flags[@]}" <<'PY'
import glob, json, os, sys
root, flags = sys.argv[1], sys.argv[2:]
units = [{"directory": root, "file": path,
          "arguments": ["clang++", *flags, "-c", path, "-o", "/dev/null"]}
         for path in sorted(glob.glob(os.path.join(root, "src", "*.cpp")))]
json.dump(units, open(os.path.join(root, "compile_commands.json"), "w"), indent=1)
PY
status=0
"$torchalias" check -p . --quiet --format sarif --output "$work/findings.sarif" || status=$?
[[ $status -eq 1 ]] || { echo "FAIL torchalias check exited $status, expected 1 (findings)"; exit 1; }
"$torchalias" instrument --findings "$work/findings.sarif" -p . --output-dir "$work/copy" \
  2>"$work/instrument.log" || { cat "$work/instrument.log"; exit 1; }
cat "$work/instrument.log"

# Shapes the instrumenter leaves to the static finding, by design (Note
# [Instrumented sites]); any other reason fails the test.
ALLOWED_SKIPS=(
  "the finding is not at a call that takes a parameter list"
  "the shared value is not a tensor, or a vector of them, named at the spawn"
  "the site is inside a macro expansion"
  "the write bumps the version counter of a tensor autograd saved"
  "the finding is a handle kept where a copy was meant, not a write"
  "the finding is a view read after its base was written in place"
)
while IFS= read -r line; do
  [[ "$line" == *"not instrumented:"* ]] || continue
  allowed=0
  for reason in "${ALLOWED_SKIPS[@]}"; do
    [[ "$line" == *"$reason"* ]] && allowed=1
  done
  (( allowed )) || { echo "FAIL unexpected skip: $line"; status=2; }
done <"$work/instrument.log"
[[ $status -ne 2 ]] || exit 1

failed=0
for original in src/*.cpp; do
  copy="$work/copy/$original"
  if ! grep -q 'TORCHALIAS_AT_' "$copy"; then
    # A file whose every finding is skipped for a listed reason (checked
    # above) has nothing to validate; one with no skip lost its sites.
    if grep -q "torchalias: $original:.*not instrumented:" "$work/instrument.log"; then
      echo "ok   $original: every finding is left to the static check"; continue
    fi
    echo "FAIL $original: no validator inserted"; failed=1; continue
  fi
  if "$clangxx" "${flags[@]}" -I "$runtime_include" -fsyntax-only -Wall -Werror \
       -Wno-unused-variable -Wno-unused-but-set-variable "$copy" 2>"$work/$(basename "$original").log"; then
    echo "ok   $original: $(grep -o 'TORCHALIAS_AT_[A-Z_]*' "$copy" | wc -l) validator(s), compiles"
  else
    echo "FAIL $original does not compile once instrumented:"; head -20 "$work/$(basename "$original").log"
    failed=1
  fi
done
exit $failed
