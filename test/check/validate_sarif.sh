#!/usr/bin/env bash
# Runs Microsoft's SARIF validator (@microsoft/sarif-multitool, from the npm
# registry) over the logs `torchalias check` writes: one with findings, notes,
# fixes and a baseline state, one with a configuration error, and a merged
# log of two shards; and over the log `torchalias report` writes. Fails on any error or warning the validator reports. It
# also validates a deliberately broken log, which must fail, so that a
# validator that checks nothing cannot pass.
#
# usage: validate_sarif.sh TORCHALIAS MOCK_TORCH_INCLUDE WORK_DIR
set -euo pipefail
torchalias=$(realpath "$1") mock=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
tool="$work/npm/node_modules/.bin/sarif-multitool"
if [[ ! -x "$tool" ]]; then
  command -v npm >/dev/null || { echo "error: npm is needed (scripts/setup.sh installs it)"; exit 1; }
  npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error @microsoft/sarif-multitool
fi

project="$work/project"
"$here/../Inputs/check-project/setup.sh" "$project" "$mock"
cd "$project"
"$torchalias" check -p . --no-pch --quiet --write-baseline "$work/half.json" src/view.cpp > /dev/null || true
logs=()
"$torchalias" check -p . --no-pch --quiet --format sarif --output "$work/findings.sarif" || true
"$torchalias" check -p . --no-pch --quiet --format sarif --baseline "$work/half.json" --output "$work/baseline.sarif" || true
"$torchalias" check -p . --no-pch --quiet --shard 1/2 --format sarif --output "$work/shard1.sarif" || true
"$torchalias" check -p . --no-pch --quiet --shard 2/2 --format sarif --output "$work/shard2.sarif" || true
"$torchalias" merge-sarif "$work/shard1.sarif" "$work/shard2.sarif" --output "$work/merged.sarif"
printf "Checks: '-*,libtorch-*'\nCheckOptions:\n  libtorch-inplace-on-view.OperatorTable: /nonexistent/ops.json\n" > .clang-tidy
"$torchalias" check -p . --no-pch --quiet --format sarif --output "$work/config-error.sarif" 2>/dev/null || true
# The log `torchalias report` writes: verdicts in result properties, and a
# dismissed result with an external suppression.
instrumented="$work/instrument-project"
"$here/../Inputs/check-project/setup.sh" "$instrumented" "$mock" "$here/../Inputs/instrument-project"
(cd "$instrumented" &&
  { "$torchalias" check -p . --no-pch --quiet --format sarif --output "$work/instrument.sarif" || true; } &&
  rm -f "$work/run.jsonl" &&
  python3 "$here/make_records.py" "$work/instrument.sarif" "$work/run.jsonl" 14=clean 32=confirmed &&
  { "$torchalias" report --static "$work/instrument.sarif" --dynamic "$work/run.jsonl" \
      --output "$work/report.sarif" > /dev/null || true; })
grep -q '"suppressions"' "$work/report.sarif" || { echo "FAIL report.sarif has no suppression"; exit 1; }
logs=(findings baseline merged config-error report)

# Each log must have results (or notifications) for the validation to mean something.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
results = len(json.load(open(f"{work}/findings.sarif"))["runs"][0]["results"])
assert results == 2, f"findings.sarif has {results} results, expected 2"
PY

# The broken copy: a result without a message, a region starting at line 0.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
log = json.load(open(f"{work}/findings.sarif"))
result = log["runs"][0]["results"][0]
del result["message"]
result["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
json.dump(log, open(f"{work}/broken.sarif", "w"))
PY

problems() { # the validator's errors and warnings about $1, one per line
  rm -f "$1.validation"
  "$tool" validate "$1" --output "$1.validation" > "$1.validator-log" 2>&1 || true
  if [[ ! -s "$1.validation" ]]; then
    echo "error the validator wrote nothing: $(tail -3 "$1.validator-log")"
    return
  fi
  python3 - "$1.validation" <<'PY'
import json, sys
for run in json.load(open(sys.argv[1]))["runs"]:
    for result in run.get("results", []):
        level = result.get("level", "warning")
        if level in ("error", "warning"):
            print(level, result["ruleId"], json.dumps(result["message"].get("arguments", [])))
PY
}

status=0
for name in "${logs[@]}"; do
  found=$(problems "$work/$name.sarif")
  if [[ -n "$found" ]]; then
    echo "FAIL $name.sarif:"; echo "$found"; status=1
  else
    echo "ok   $name.sarif validates with no errors or warnings"
  fi
done
if [[ -z "$(problems "$work/broken.sarif")" ]]; then
  echo "FAIL the validator accepted a broken log"; status=1
else
  echo "ok   the validator rejects a broken log"
fi
exit $status
