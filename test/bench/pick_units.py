#!/usr/bin/env python3
"""Picks a held-out-like sample of a corpus's translation units: PER_REPO units
of every repository (the top-level folders of the corpus), the ones whose
paths, relative to the corpus, have the smallest SHA-1. No unit is chosen for
its first include or its size, so the sample starts with whatever headers the
repositories' units start with. The same corpus gives the same sample on every
machine. Writes OUT/compile_commands.json with the chosen entries and prints
them, with each unit's first #include. See docs/benchmarks.md.

usage: pick_units.py --corpus DIR [--per-repo N] --out DIR
"""
import argparse
import collections
import hashlib
import json
import os
import re

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"][^>"]+[>"])')


def first_include(path):
    try:
        for line in open(path, errors="replace"):
            m = INCLUDE.match(line)
            if m:
                return m[1]
    except OSError:
        pass
    return "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--per-repo", type=int, default=3)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    units = json.load(open(os.path.join(args.corpus, "compile_commands.json")))
    by_repo = collections.defaultdict(list)
    for unit in units:
        rel = os.path.relpath(os.path.join(unit["directory"], unit["file"]), args.corpus)
        by_repo[rel.split(os.sep)[0]].append((hashlib.sha1(rel.encode()).hexdigest(), rel, unit))
    picked = []
    for repo in sorted(by_repo):
        for _, rel, unit in sorted(by_repo[repo], key=lambda e: e[:2])[:args.per_repo]:
            picked.append(unit)
            print(f"{rel}  {first_include(os.path.join(args.corpus, rel))}")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "compile_commands.json"), "w") as out:
        json.dump(picked, out, indent=1)
    firsts = collections.Counter(first_include(os.path.join(u["directory"], u["file"]))
                                 for u in picked)
    print(f"{len(picked)} units of {len(by_repo)} repositories; first includes: " +
          ", ".join(f"{k} {v}" for k, v in firsts.most_common()))


if __name__ == "__main__":
    main()
