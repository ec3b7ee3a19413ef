#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every
# test (lit suites through the plugin and torchalias-tidy, unit tests, the
# operator-table check and the runtime's GoogleTest suites) with ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
