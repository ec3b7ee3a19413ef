#!/usr/bin/env bash
# scripts/test-llvm.sh N: builds the plugin against LLVM N (installing that
# release's packages if needed) and runs the mock-header lit suite through
# clang-tidy-N --load, with the suite's expectations unchanged. The full
# suite (real headers, tools, runtime) stays on LLVM 19: scripts/test.sh.
# See docs/llvm-releases.md.
set -euo pipefail
version=${1:?usage: scripts/test-llvm.sh LLVM_MAJOR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-llvm$version}
TORCHALIAS_LLVM_VERSION=$version BUILD_DIR=$build TORCHALIAS_BUILD_TARGETS=TorchAliasTidyPlugin \
  TORCHALIAS_CMAKE_ARGS="-DTORCHALIAS_BUILD_RUNTIME=OFF -DTORCHALIAS_BUILD_DRIVER=OFF ${TORCHALIAS_CMAKE_ARGS:-}" \
  "$root/scripts/setup.sh"
lit=$(sed -n 's/^TORCHALIAS_LIT:FILEPATH=//p' "$build/CMakeCache.txt")
python3 "$lit" -sv --param tidy=plugin --param mock_only=1 "$build/test"
