#!/usr/bin/env python3
"""Measures what the libtorch checks cost on top of parsing and traversal.

For each translation unit it runs, interleaved and --repeat times each:
  (a) clang++ -fsyntax-only                      (parsing alone)
  (b) clang-tidy with one trivial matcher check  (the traversal baseline)
  (c) clang-tidy --load=<plugin> -checks=-*,libtorch-*
and reports the median wall time, CPU time (user + system) and peak memory
(max RSS) of each, with the ratios (c)/(a) and (c)/(b). The runs are
interleaved so that machine noise hits all three alike; on a loaded machine
the CPU-time ratios are the stable ones.

usage: bench_checks.py --plugin PATH [--repeat N] [--llvm 19] FILE...
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

BASELINE_CHECK = "readability-delete-null-pointer"


def measure(command):
    """(wall seconds, CPU seconds, peak MiB) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit("benchmark command failed: " + " ".join(command))
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--llvm", default="19")
    parser.add_argument("--flags", default="-std=c++17 -isystem "
                        "/usr/include/torch/csrc/api/include")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    flags = args.flags.split()
    tidy = "clang-tidy-" + args.llvm

    configs = {
        "a": lambda f: ["clang++-" + args.llvm, "-fsyntax-only", f] + flags,
        "b": lambda f: [tidy, "--checks=-*," + BASELINE_CHECK, f, "--"] + flags,
        "c": lambda f: [tidy, "--load=" + args.plugin,
                        "--checks=-*,libtorch-*", f, "--"] + flags,
    }
    print("| translation unit | (a) syntax-only wall s / CPU s / MiB | (b) "
          "tidy baseline | (c) libtorch checks | (c)/(a) wall | (c)/(a) CPU "
          "| (c)/(b) wall | (c)/(b) CPU | (c)/(b) memory |")
    print("|---|---|---|---|---|---|---|---|---|")
    totals = {key: [0.0, 0.0] for key in configs}
    for path in args.files:
        runs = {key: [] for key in configs}
        for _ in range(args.repeat):
            for key, command in configs.items():
                runs[key].append(measure(command(path)))
        medians = {key: [statistics.median(run[i] for run in values)
                         for i in range(3)]
                   for key, values in runs.items()}
        for key in configs:
            totals[key][0] += medians[key][0]
            totals[key][1] += medians[key][1]
        a, b, c = medians["a"], medians["b"], medians["c"]
        cell = lambda m: "%.2f / %.2f / %.0f" % tuple(m)
        print("| %s | %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
            os.path.basename(path), cell(a), cell(b), cell(c), c[0] / a[0],
            c[1] / a[1], c[0] / b[0], c[1] / b[1], c[2] / b[2]))
    print()
    ta, tb, tc = totals["a"], totals["b"], totals["c"]
    print("Totals over %d units, medians of %d runs: (c)/(a) wall %.3f, CPU "
          "%.3f; (c)/(b) wall %.3f, CPU %.3f" % (
              len(args.files), args.repeat, tc[0] / ta[0], tc[1] / ta[1],
              tc[0] / tb[0], tc[1] / tb[1]))


if __name__ == "__main__":
    main()
