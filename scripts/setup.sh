#!/usr/bin/env bash
# Installs the Debian 12 packages torchalias needs, if any is missing, then
# configures and builds the project in ${BUILD_DIR:-build}.
set -euo pipefail

LLVM_VERSION=${TORCHALIAS_LLVM_VERSION:-19}
PACKAGES=(
  cmake ninja-build python3
  "clang-${LLVM_VERSION}" "libclang-${LLVM_VERSION}-dev" "clang-tidy-${LLVM_VERSION}"
  "llvm-${LLVM_VERSION}-dev" "llvm-${LLVM_VERSION}-tools"
  libtorch-dev libxxhash-dev libgtest-dev googletest nlohmann-json3-dev
  # torchalias-clangd: Debian's clangd library is built with its remote index,
  # so linking it needs gRPC (whose CMake package wants grpc_cpp_plugin, and
  # LLVM 22's CMake package wants gRPC's); neovim is the real editor of its
  # test.
  libgrpc++-dev libgrpc-dev libprotobuf-dev libabsl-dev protobuf-compiler-grpc neovim
  # torchalias check's CI tests: git (diff mode), pre-commit, PyYAML, and
  # node for Microsoft's SARIF validator (from the npm registry).
  git pre-commit python3-yaml nodejs
)

missing=()
for package in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
# NodeSource's nodejs carries npm; Debian's has it as a package of its own.
if ! command -v npm >/dev/null; then
  missing+=(npm)
fi
if ((${#missing[@]})); then
  echo "torchalias: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "error: run as root or install sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=sudo
  fi
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ $LLVM_VERSION == 19 ]]; then
  build=${BUILD_DIR:-$root/build}
else
  build=${BUILD_DIR:-$root/build-llvm$LLVM_VERSION}
fi
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTORCHALIAS_BUILD_RUNTIME=ON \
  -DTORCHALIAS_LLVM_VERSION="$LLVM_VERSION" ${TORCHALIAS_CMAKE_ARGS:-}
cmake --build "$build" --parallel "${TORCHALIAS_JOBS:-$(nproc)}" \
  ${TORCHALIAS_BUILD_TARGETS:+--target $TORCHALIAS_BUILD_TARGETS}
