#!/usr/bin/env bash
# `torchalias check` against stock clang-tidy with the plugin on a
# held-out-like sample of the development corpus: PER_REPO units of each
# repository, picked by test/bench/pick_units.py. See
# docs/benchmarks.md#a-held-out-like-sample.
#
#   CORPUS=/work/corpus test/bench/corpus_sample.sh
#
# BUILD_DIR (default build), PER_REPO (default 3), REPEAT (default 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
: "${CORPUS:?set CORPUS to the corpus folder with compile_commands.json}"
sample=$(mktemp -d /tmp/torchalias-sample-XXXXXX)
trap 'rm -rf "$sample"' EXIT
python3 "$root/test/bench/pick_units.py" --corpus "$CORPUS" --per-repo "${PER_REPO:-3}" --out "$sample"
python3 "$root/test/bench/check_speed.py" \
  --torchalias "$build/bin/torchalias" --plugin "$build/lib/TorchAliasTidyPlugin.so" \
  --cdb "$sample" --repeat "${REPEAT:-1}"
