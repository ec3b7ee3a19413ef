#!/usr/bin/env python3
"""`torchalias check` against stock clang-tidy with the plugin, side by side,
on the same translation units: CPU time and findings. See docs/benchmarks.md.

The units are every entry of one or more compilation databases (--cdb,
repeatable), optionally filtered (--limit N per database, taken round-robin
over the top-level folders so that each project is represented). They are
merged into one scratch compile_commands.json. Then, interleaved for REPEAT
rounds:
  stock   clang-tidy-19 --load=PLUGIN -checks=-*,libtorch-* -p SCRATCH FILE,
          one process per unit, as a CI job runs it;
  cold    torchalias check -j 1 over all units with an empty PCH cache, so the
          PCH builds are counted;
  warm    the same with the cache the cold run left (a CI cache hit).
CPU time is user + system of the child processes (getrusage). The findings
of the three must be identical, (file, line, column, check, message); the
script fails if they are not. It also prints how many units had a PCH, and
why the others had none (the JSON output's no_pch_reason).

usage: check_speed.py --torchalias BIN --plugin SO [--clang-tidy EXE]
                      --cdb DIR [--cdb DIR ...] [--limit N] [--repeat R]
"""
import argparse
import collections
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

WARNING = re.compile(r"^(.+?):(\d+):(\d+): (?:warning|error): (.*) \[(libtorch-[a-z-]+)\]$")


def cpu_of(command, **kwargs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, result


def select(cdb_dirs, limit):
    entries = []
    for directory in cdb_dirs:
        units = json.load(open(os.path.join(directory, "compile_commands.json")))
        if limit:
            by_project = collections.defaultdict(list)
            for unit in sorted(units, key=lambda u: u["file"]):
                rel = os.path.relpath(unit["file"], directory)
                by_project[rel.split(os.sep)[0]].append(unit)
            picked, queues = [], [by_project[k] for k in sorted(by_project)]
            while len(picked) < limit and any(queues):
                for queue in queues:
                    if queue and len(picked) < limit:
                        picked.append(queue.pop(0))
            units = picked
        entries.extend(units)
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torchalias", required=True)
    parser.add_argument("--plugin", required=True)
    parser.add_argument("--clang-tidy", default="clang-tidy-19")
    parser.add_argument("--cdb", action="append", required=True)
    parser.add_argument("--limit", type=int, default=0, help="units per database")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    scratch = tempfile.mkdtemp(prefix="torchalias-speed-")
    entries = select(args.cdb, args.limit)
    with open(os.path.join(scratch, "compile_commands.json"), "w") as out:
        json.dump(entries, out)
    files = [e["file"] for e in entries]
    checks = "-*,libtorch-*"

    stock_cpu = collections.defaultdict(list)
    rounds = []
    findings = {}
    for round_ in range(args.repeat):
        stock_found = set()
        stock_total = 0.0
        for f in files:
            cpu, result = cpu_of([args.clang_tidy, "--load=" + args.plugin, "-checks=" + checks,
                                  "-p", scratch, f])
            stock_cpu[f].append(cpu)
            stock_total += cpu
            for line in result.stdout.splitlines():
                m = WARNING.match(line)
                if m:
                    stock_found.add((os.path.realpath(m[1]), int(m[2]), int(m[3]), m[5], m[4]))
        cache = os.path.join(scratch, "pch-%d" % round_)
        ours, pch = {}, {}
        for label in ("cold", "warm"):
            out = os.path.join(scratch, label + ".json")
            cpu, result = cpu_of([args.torchalias, "check", "-p", scratch, "--checks=" + checks,
                                  "-j", "1", "--format", "json", "--output", out,
                                  "--pch-cache", cache, "--root", "/"] + files)
            if result.returncode not in (0, 1):
                sys.exit("torchalias check failed:\n" + result.stderr)
            log = json.load(open(out))
            found = {(os.path.join("/", f["file"]), f["line"], f["column"], f["check"],
                      f["message"]) for f in log["findings"]}
            ours[label] = (cpu, found, result.stderr.strip().splitlines()[-1])
            pch[label] = {os.path.join("/", u["file"]): u.get("no_pch_reason", "")
                          for u in log["units"]}
        rounds.append((stock_total, ours["cold"][0], ours["warm"][0]))
        findings = {"stock": stock_found, "cold": ours["cold"][1], "warm": ours["warm"][1]}
        print(f"round {round_ + 1}: stock {stock_total:.1f} s, cold {ours['cold'][0]:.1f} s, "
              f"warm {ours['warm'][0]:.1f} s; {ours['cold'][2]}", flush=True)

    print()
    print("| translation unit | stock CPU s (median) |")
    print("|---|---|")
    for f in files:
        print(f"| {os.path.relpath(f, '/work') if f.startswith('/work/') else f} | "
              f"{statistics.median(stock_cpu[f]):.2f} |")
    stock = statistics.median(r[0] for r in rounds)
    cold = statistics.median(r[1] for r in rounds)
    warm = statistics.median(r[2] for r in rounds)
    print()
    misses = collections.Counter(r for r in pch["cold"].values() if r)
    with_pch = len(pch["cold"]) - sum(misses.values())
    print(f"PCH: {with_pch} of {len(pch['cold'])} units ({with_pch / len(pch['cold']):.0%})" +
          ("; without: " + ", ".join(f"{n} {r}" for r, n in misses.most_common())
           if misses else ""))
    for f, reason in sorted(pch["cold"].items()):
        if reason:
            print(f"  no PCH: {f} ({reason})")
    print(f"units: {len(files)}; findings: stock {len(findings['stock'])}, "
          f"cold {len(findings['cold'])}, warm {len(findings['warm'])}")
    print(f"CPU (median of {args.repeat}): stock {stock:.1f} s, torchalias cold {cold:.1f} s "
          f"({cold / stock:.3f}x), warm {warm:.1f} s ({warm / stock:.3f}x)")
    shutil.rmtree(scratch, ignore_errors=True)
    if not (findings["stock"] == findings["cold"] == findings["warm"]):
        for label in ("cold", "warm"):
            for extra in sorted(findings[label] - findings["stock"]):
                print(f"only {label}: {extra}")
            for missing in sorted(findings["stock"] - findings[label]):
                print(f"missing in {label}: {missing}")
        sys.exit("the findings differ")
    print("findings identical")


if __name__ == "__main__":
    main()
