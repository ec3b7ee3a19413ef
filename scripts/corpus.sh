#!/usr/bin/env bash
# Measures the checks' precision on the development corpus (../shared/corpus):
# installs the packages its translation units include, extracts the
# repositories from their bare mirrors, writes the compilation database, runs
# the plugin over every TU and scores the findings against the project's own
# ledger, test/corpus/triage.tsv. See docs/precision.md.
#
#   MIRROR=<folder of owner+name/repo mirrors> CORPUS=<scratch folder> scripts/corpus.sh
#
# TU_FILTER, JOBS and the other knobs of the corpus's run.sh pass through.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus_tools=${CORPUS_TOOLS:-$root/../shared/corpus}
build=${BUILD_DIR:-$root/build}
: "${MIRROR:?set MIRROR to the folder that holds the <owner>+<name>/repo mirrors}"
: "${CORPUS:?set CORPUS to a scratch folder for the extracted sources}"
[[ -x $corpus_tools/run.sh ]] || { echo "error: no corpus tools at $corpus_tools (set CORPUS_TOOLS)" >&2; exit 2; }

PACKAGES=(libopencv-dev libboost-program-options-dev nlohmann-json3-dev libjsoncpp-dev libcxxopts-dev
  # torch/extension.h, which the extension kernels include, needs Python.h and pybind11.
  pybind11-dev libpython3.11-dev)
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo=sudo
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

[[ -f $build/lib/TorchAliasTidyPlugin.so ]] || "$root/scripts/setup.sh"
export MIRROR CORPUS
"$corpus_tools/extract.sh"
"$corpus_tools/make_cdb.py"
"$corpus_tools/run.sh" clang-tidy-19 --load="$build/lib/TorchAliasTidyPlugin.so" '-checks=-*,libtorch-*'
"$corpus_tools/score.py" "${RESULTS:-$CORPUS/results}" --triage "$root/test/corpus/triage.tsv"
