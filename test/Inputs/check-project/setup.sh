#!/bin/sh
# setup.sh DEST MOCK_TORCH [PROJECT]: a scratch copy of PROJECT (default:
# this project) at DEST with its compilation database, for the `torchalias
# check`, `instrument` and `report` tests.
set -e
here=${3:-$(dirname "$0")}
rm -rf "$1"
mkdir -p "$1"
cp -r "$here/src" "$here/.clang-tidy" "$1/"
root=$(cd "$1" && pwd)
sed -e "s|@ROOT@|$root|g" -e "s|@TORCH@|$2|g" "$here/compile_commands.json.in" > "$1/compile_commands.json"
