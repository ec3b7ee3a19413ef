#!/usr/bin/env bash
# Measures the libtorch facts again on the libtorch installed here: which
# tensors each operator saves for backward, and which overlaps each in-place
# and out= operator refuses, and what the C++ API's functions and module
# forwards write and save.
#   scripts/regenerate-libtorch-facts.sh [OUTPUT_DIR]
# Without OUTPUT_DIR it rewrites the built-in tables,
# checks/data/aten-saved-tensors.json, checks/data/aten-overlap.json and
# checks/data/libtorch-api-effects.json.
# With EXPLAIN=1, libtorch's message for each skipped operator
# goes to stderr.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
output=${1:-$root/checks/data}
explain=()
if [[ ${EXPLAIN:-0} == 1 ]]; then
  explain=(--explain)
fi
cmake --build "$build" --target torchalias-gen-saved-tensors \
  torchalias-gen-overlap-semantics torchalias-gen-api-effects
"$build/checks/tablegen/torchalias-gen-saved-tensors" "${explain[@]}" \
  -o "$output/aten-saved-tensors.json"
"$build/checks/tablegen/torchalias-gen-overlap-semantics" "${explain[@]}" \
  -o "$output/aten-overlap.json"
"$build/checks/tablegen/torchalias-gen-api-effects" \
  -o "$output/libtorch-api-effects.json"
echo "wrote $output/aten-saved-tensors.json, $output/aten-overlap.json and" \
  "$output/libtorch-api-effects.json"
