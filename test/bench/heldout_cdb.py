#!/usr/bin/env python3
"""Writes $HELDOUT/compile_commands.json for the held-out units of
test/bench/heldout-units.tsv (docs/benchmarks.md#repositories-we-do-not-have).

$HELDOUT holds each repository's sources at the listed commit in
<owner>+<name>/ (a `git archive` of a mirror, as the development corpus's
extract.sh makes). Exits 1, naming them, if any listed file is missing.
"""
import json
import os
import shlex
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = ["clang++-19", "-std=c++17", "-I/usr/include/torch/csrc/api/include"]


def main():
    root = os.environ.get("HELDOUT")
    if not root:
        sys.exit("set HELDOUT to the folder that holds the <owner>+<name>/ sources")
    entries, missing = [], []
    for line in open(os.path.join(HERE, "heldout-units.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        repo, _commit, path, flags = line.rstrip("\n").split("\t")
        repo_root = os.path.join(root, repo)
        src = os.path.join(repo_root, path)
        if not os.path.isfile(src):
            missing.append(src)
            continue
        argv = list(BASE)
        for flag in shlex.split(flags):
            if flag.startswith("-I") and not flag[2:].startswith("/"):
                flag = "-I" + os.path.normpath(os.path.join(repo_root, flag[2:]))
            argv.append(flag)
        entries.append({"directory": repo_root, "file": src,
                        "arguments": argv + ["-c", src, "-o", "/dev/null"]})
    out = os.path.join(root, "compile_commands.json")
    with open(out, "w") as f:
        json.dump(entries, f, indent=1)
    print(f"wrote {out}: {len(entries)} units")
    for src in missing:
        print(f"missing: {src}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
