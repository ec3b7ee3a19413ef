#!/usr/bin/env python3
"""Scores a clang-tidy command on a blind set (see test/blind/README.md).

    test/blind/score.py <set-dir> [--jobs N] [--json OUT] -- CLANG_TIDY_CMD...

Each case is checked with `CLANG_TIDY_CMD -checks=-*,libtorch-* FILE -- <real
libtorch flags>`. A bug is found when the check its BUG(...) markers name
reports on one of its marked lines; a near-miss with any libtorch finding is
a false positive. Prints the figures, per check and in all.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

TORCH_FLAGS = ["-std=c++17", "-isystem", "/usr/include/torch/csrc/api/include",
               "-isystem", "/usr/include/python3.11"]
DIAG = re.compile(r"^(?P<file>[^ :][^:]*):(?P<line>\d+):\d+: (?:warning|error): .*\[(?P<checks>[^\]]+)\]$")
MARK = re.compile(r"//.*\bBUG\((?P<check>libtorch-[a-z-]+)\)")


def read_case(path):
    kind, marks = None, collections.defaultdict(set)
    with open(path) as f:
        for number, text in enumerate(f, 1):
            m = re.match(r"^// KIND: *([a-z-]+)", text)
            if m and kind is None:
                kind = m.group(1)
            for m in MARK.finditer(text):
                marks[m.group("check")].add(number)
    return kind, marks


def run_case(command, path):
    proc = subprocess.run(command + ["-checks=-*,libtorch-*", path, "--"] + TORCH_FLAGS,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    findings = []
    for text in proc.stdout.splitlines():
        m = DIAG.match(text)
        if not m or os.path.realpath(m.group("file")) != os.path.realpath(path):
            continue
        for check in m.group("checks").split(","):
            if check.startswith("libtorch-"):
                findings.append((int(m.group("line")), check))
    compile_error = "clang-diagnostic-error" in proc.stdout
    return findings, compile_error


def main():
    parser = argparse.ArgumentParser(usage="%(prog)s SET_DIR [--jobs N] [--json OUT] -- CLANG_TIDY_CMD...")
    parser.add_argument("set_dir")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json")
    argv = sys.argv[1:]
    if "--" not in argv:
        parser.error("give the clang-tidy command after --")
    split = argv.index("--")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if not command:
        parser.error("give the clang-tidy command after --")
    cases = sorted(os.path.join(args.set_dir, f) for f in os.listdir(args.set_dir) if f.endswith(".cpp"))
    if not cases:
        sys.exit(f"error: no cases in {args.set_dir}")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = dict(zip(cases, pool.map(lambda c: run_case(command, c), cases)))

    per_check = collections.defaultdict(lambda: collections.Counter())
    rows, errors = [], []
    for case in cases:
        kind, marks = read_case(case)
        findings, compile_error = results[case]
        name = os.path.basename(case)
        if compile_error:
            errors.append(name)
        if kind == "near-miss":
            verdict = "false-positive" if findings else "quiet"
            per_check["near-miss"][verdict] += 1
        elif kind == "bug" and len(marks) == 1:
            (check,) = marks
            lines = marks[check]
            right = any(c == check and l in lines for l, c in findings)
            other = any(l in lines for l, c in findings)
            verdict = "found" if right else "other-check" if other else "missed"
            per_check[check][verdict] += 1
        else:
            verdict = "malformed"
            errors.append(name)
        rows.append({"case": name, "kind": kind, "verdict": verdict,
                     "findings": [f"{l}:{c}" for l, c in findings]})
        print(f"{verdict:15} {name:45} {' '.join(f'{l}:{c}' for l, c in findings)}")

    print()
    bugs = found = 0
    for check in sorted(k for k in per_check if k != "near-miss"):
        c = per_check[check]
        n = sum(c.values())
        bugs, found = bugs + n, found + c["found"]
        print(f"{check:36} {c['found']}/{n} found, {c['other-check']} by another check only, {c['missed']} missed")
    nm = per_check["near-miss"]
    print(f"{'all bugs':36} {found}/{bugs} found by the right check on a marked line")
    print(f"{'near-misses':36} {nm['false-positive']} of {sum(nm.values())} with a finding")
    if errors:
        print("compile errors or malformed cases: " + ", ".join(errors))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"cases": rows, "found": found, "bugs": bugs,
                       "near_miss_false_positives": nm["false-positive"],
                       "near_misses": sum(nm.values())}, f, indent=2)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
