#!/usr/bin/env bash
# The documented check of the Debian package (README "Installing"): builds
# torchalias-llvm<N>_<version>_amd64.deb with cpack in an existing build
# directory, installs it with apt-get, runs the bundled example through the
# installed tools, builds a consumer of the installed TorchAlias::runtime
# package, and removes the package again. Needs root (or sudo).
#
#   scripts/check-package.sh            # BUILD_DIR=build (LLVM 19)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
sudo=""
[[ $(id -u) -ne 0 ]] && sudo=sudo
release=$(sed -n 's/^TORCHALIAS_LLVM_VERSION:STRING=//p' "$build/CMakeCache.txt")
command -v dpkg-shlibdeps >/dev/null || $sudo apt-get install -y -q --no-install-recommends dpkg-dev

(cd "$build" && cpack -G DEB > /dev/null)
deb=$(ls -t "$build"/torchalias-llvm"$release"_*_amd64.deb | head -1)
echo "== built $(basename "$deb")"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Depends\|Conflicts\):/  \1:/p'
$sudo apt-get install -y -q "$deb" > /dev/null
trap '$sudo apt-get remove -y -q "torchalias-llvm$release" > /dev/null' EXIT

work=$(mktemp -d /tmp/torchalias-package-XXXXXX)
cmake -S "$root/docs/examples" -B "$work/example" -G Ninja > /dev/null
status=0
expect() { # expect DESCRIPTION EXPECTED_EXIT COMMAND...: runs it, checks exit code and findings
  local what=$1 want=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [[ $rc -eq $want ]] && grep -q "libtorch-inplace-on-view" <<<"$out"; then
    echo "ok   $what"
  else
    echo "FAIL $what (exit $rc)"; echo "$out" | tail -20; status=1
  fi
}
expect "/usr/bin/torchalias check on the example" 1 \
  /usr/bin/torchalias check -p "$work/example" --checks='-*,libtorch-*' --quiet --pch-cache "$work/pch"
expect "/usr/bin/torchalias-tidy on the example" 0 \
  /usr/bin/torchalias-tidy -checks='-*,libtorch-*' -p "$work/example" "$root/docs/examples/src/augment.cpp"
expect "clang-tidy-$release --load the installed plugin" 0 \
  "clang-tidy-$release" --load=/usr/lib/torchalias/TorchAliasTidyPlugin.so -checks='-*,libtorch-*' \
  -p "$work/example" "$root/docs/examples/src/augment.cpp"
if [[ -x /usr/bin/torchalias-clangd ]]; then
  if /usr/bin/torchalias-clangd --version | grep -q clangd; then echo "ok   /usr/bin/torchalias-clangd runs"; else echo "FAIL torchalias-clangd"; status=1; fi
fi
# The runtime's CMake package, from the installed files only.
if cmake -S "$root/runtime/test/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH=/usr > "$work/consumer.log" 2>&1 &&
   cmake --build "$work/consumer" >> "$work/consumer.log" 2>&1; then
  echo "ok   find_package(TorchAlias) and TorchAlias::runtime from the package"
else
  echo "FAIL the runtime consumer:"; tail -20 "$work/consumer.log"; status=1
fi
rm -rf "$work"
exit $status
