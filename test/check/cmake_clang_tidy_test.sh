#!/usr/bin/env bash
# CMAKE_CXX_CLANG_TIDY with torchalias-tidy, as docs/ci.md shows it: a build
# of a target with a finding fails with the finding in the build log, and the
# same build of a clean target succeeds.
#
# usage: cmake_clang_tidy_test.sh TORCHALIAS_TIDY CXX MOCK_TORCH_INCLUDE WORK_DIR
set -euo pipefail
tidy=$(realpath "$1") cxx=$2 mock=$(realpath "$3") work=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/src"
cp "$here/../Inputs/check-project/src/"{view,clean}.cpp "$work/src/"
cat > "$work/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(gate LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
include_directories(SYSTEM $mock)
add_library(tidy_clean OBJECT src/clean.cpp)
add_library(tidy_view OBJECT src/view.cpp)
CMAKE
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" \
  "-DCMAKE_CXX_CLANG_TIDY=$tidy;-checks=-*,libtorch-*;--warnings-as-errors=libtorch-*" > "$work/configure.log"

status=0
if cmake --build "$work/build" --target tidy_clean > "$work/clean.log" 2>&1; then
  echo "ok   the clean target builds"
else
  echo "FAIL the clean target failed:"; cat "$work/clean.log"; status=1
fi
if cmake --build "$work/build" --target tidy_view > "$work/view.log" 2>&1; then
  echo "FAIL the target with a finding built:"; cat "$work/view.log"; status=1
elif grep -q "view.cpp:5:8: error: 'zero_' writes in place to 'head'.*\[libtorch-inplace-on-view,-warnings-as-errors\]" "$work/view.log"; then
  echo "ok   the target with a finding fails, with the finding in the build log"
else
  echo "FAIL the build failed without the finding:"; cat "$work/view.log"; status=1
fi
exit $status
