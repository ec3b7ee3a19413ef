#!/usr/bin/env bash
# `torchalias check` against stock clang-tidy with the plugin, on 20 units of
# the development corpus (4 per project, round-robin) plus the bundled example
# project. See docs/benchmarks.md#torchalias-check.
#
#   CORPUS=/work/corpus test/bench/check_speed.sh     # after scripts/corpus.sh
#
# BUILD_DIR (default build), LIMIT (corpus units, default 20), REPEAT
# (default 1).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
: "${CORPUS:?set CORPUS to the corpus folder with compile_commands.json (scripts/corpus.sh makes it)}"
examples=$(mktemp -d /tmp/torchalias-examples-XXXXXX)
trap 'rm -rf "$examples"' EXIT
cmake -S "$root/docs/examples" -B "$examples" -G Ninja > /dev/null
exec python3 "$root/test/bench/check_speed.py" \
  --torchalias "$build/bin/torchalias" --plugin "$build/lib/TorchAliasTidyPlugin.so" \
  --cdb "$CORPUS" --cdb "$examples" --limit "${LIMIT:-20}" --repeat "${REPEAT:-1}"
