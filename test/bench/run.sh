#!/usr/bin/env bash
# Runs the checks benchmark on real-libtorch translation units: the bundled
# example project and the real-header test. See docs/benchmarks.md.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${BUILD_DIR:-$root/build}
exec python3 "$root/test/bench/bench_checks.py" \
  --plugin "$build/lib/TorchAliasTidyPlugin.so" --repeat "${REPEAT:-3}" \
  --flags "-std=c++17 -isystem /usr/include/torch/csrc/api/include -I$root/docs/examples/src" \
  "$root/docs/examples/src/augment.cpp" "$root/docs/examples/src/model.cpp" \
  "$root/docs/examples/src/train.cpp" "$root/test/real/inplace-on-view.cpp" "$@"
