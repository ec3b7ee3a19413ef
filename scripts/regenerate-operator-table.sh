#!/usr/bin/env bash
# Regenerates the operator table from the libtorch installed here.
#   scripts/regenerate-operator-table.sh [OUTPUT]
# Without OUTPUT it rewrites the built-in table, checks/data/aten-operators.json.
# To use a table for your own libtorch without rebuilding, point the checks'
# OperatorTable option at OUTPUT.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
output=${1:-$root/checks/data/aten-operators.json}
cmake --build "$build" --target torchalias-gen-operator-table
"$build/checks/tablegen/torchalias-gen-operator-table" -o "$output"
echo "wrote $output"
