#!/usr/bin/env bash
# Runs the pre-commit hook of .pre-commit-hooks.yaml for real: Debian's
# pre-commit installs it from a git repository holding that file, in a test
# repository made from test/Inputs/check-project, and a commit with a finding
# is refused while a clean one goes through.
#
# usage: pre_commit_test.sh TORCHALIAS MOCK_TORCH_INCLUDE WORK_DIR
set -euo pipefail
torchalias=$(realpath "$1") mock=$(realpath "$2") work=$3
here=$(cd "$(dirname "$0")" && pwd)
source_root=$(cd "$here/../.." && pwd)
command -v pre-commit >/dev/null || { echo "error: pre-commit is needed (scripts/setup.sh installs it)"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
export PATH="$(dirname "$torchalias"):$PATH" PRE_COMMIT_HOME="$work/cache"
git_() { git -c user.name=test -c user.email=test@example.org "$@"; }

# The hook repository: this checkout's .pre-commit-hooks.yaml, committed.
mkdir "$work/hooks" && cp "$source_root/.pre-commit-hooks.yaml" "$work/hooks/"
git_ -C "$work/hooks" init -q && git_ -C "$work/hooks" add -A && git_ -C "$work/hooks" commit -qm hooks
rev=$(git -C "$work/hooks" rev-parse HEAD)

# The project, using the hook with its build directory at the root.
"$here/../Inputs/check-project/setup.sh" "$work/project" "$mock"
cd "$work/project"
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $work/hooks
    rev: $rev
    hooks:
      - id: torchalias
        args: [-p, ., --quiet, --no-pch]
YAML
git_ init -q && git_ add .pre-commit-config.yaml .clang-tidy compile_commands.json && git_ commit -qm setup
pre-commit install > /dev/null

status=0
git_ add src/clean.cpp
if git_ commit -qm clean > "$work/clean.log" 2>&1; then
  echo "ok   a clean file is committed"
else
  echo "FAIL the hook refused a clean file:"; cat "$work/clean.log"; status=1
fi
git_ add src/view.cpp
if git_ commit -qm view > "$work/view.log" 2>&1; then
  echo "FAIL the hook let a finding through:"; cat "$work/view.log"; status=1
elif grep -q "src/view.cpp:5:8: warning: 'zero_' writes in place to 'head'" "$work/view.log"; then
  echo "ok   a commit with a finding is refused, with the finding shown"
else
  echo "FAIL the commit failed without the finding:"; cat "$work/view.log"; status=1
fi
exit $status
