#!/usr/bin/env python3
"""How long torchalias-clangd takes to re-check a file that includes
<torch/torch.h> after an edit, once the preamble is built. See
docs/benchmarks.md.

For each source and each configuration (the libtorch checks on, and all
clang-tidy checks off, to isolate their cost) the script starts a server on a
scratch copy of the source, opens it, waits for the first diagnostics (the
preamble build), then makes EDITS edits, one at a time. Each edit appends a
function with an in-place write to a view, so every re-check has a new finding
to report; the time from didChange to the publishDiagnostics of that version
is the re-check latency. clangd debounces edits (at least 50 ms); that wait is
included, as the user sees it.

usage: clangd_recheck.py --clangd PATH [--edits N] [--flags FLAGS] SOURCE...
"""
import argparse
import os
import shlex
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clangd"))
from lsp_client import LspClient, scratch_dir  # noqa: E402

CONFIGS = {"libtorch-*": "Checks: '-*,libtorch-*'\n", "no checks": "Checks: '-*'\n"}


def measure(clangd, source, flags, config, edits):
    root = scratch_dir()
    name = os.path.basename(source)
    shutil.copy(source, os.path.join(root, name))
    with open(os.path.join(root, ".clang-tidy"), "w") as out:
        out.write(CONFIGS[config])
    with open(os.path.join(root, "compile_commands.json"), "w") as out:
        out.write('[{"directory": %s, "file": %s, "command": %s}]' % tuple(
            '"%s"' % s for s in (root, os.path.join(root, name),
                                 "clang++ " + " ".join(flags) + " -c " + name)))
    uri = "file://" + os.path.join(root, name)
    text = open(source).read()
    client = LspClient([clangd, "--log=error", "-j=2"], root)
    try:
        client.initialize(root)
        start = time.monotonic()
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
        client.diagnostics(uri, version=1, timeout=600)
        first = time.monotonic() - start
        latencies = []
        for version in range(2, edits + 2):
            text += ("\nvoid edit_%d(torch::Tensor x) {\n"
                     "  auto v = x.select(0, 0);\n"
                     "  v.add_(%d);\n}\n" % (version, version))
            start = time.monotonic()
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"text": text}]})
            diagnostics = client.diagnostics(uri, version=version, timeout=600)
            latencies.append(time.monotonic() - start)
            found = sum(d.get("code") == "libtorch-inplace-on-view" for d in diagnostics)
            expected = version - 1 if config == "libtorch-*" else 0
            if found < expected:
                sys.exit(f"{name}: version {version} has {found} findings, expected {expected}")
    finally:
        client.close()
    return first, latencies


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clangd", required=True)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--flags", default="-std=c++17 -isystem /usr/include/torch/csrc/api/include")
    parser.add_argument("sources", nargs="+")
    args = parser.parse_args()
    flags = shlex.split(args.flags)

    print("| translation unit | checks | first diagnostics s | re-check median s | re-check max s |")
    print("|---|---|---|---|---|")
    worst = 0.0
    for source in args.sources:
        flags_here = flags + ["-I" + os.path.dirname(os.path.abspath(source))]
        for config in CONFIGS:
            first, latencies = measure(os.path.abspath(args.clangd), source, flags_here,
                                       config, args.edits)
            if config == "libtorch-*":
                worst = max(worst, max(latencies))
            print(f"| {os.path.basename(source)} | {config} | {first:.2f} | "
                  f"{statistics.median(latencies):.3f} | {max(latencies):.3f} |", flush=True)
    print(f"\nworst re-check with the libtorch checks: {worst:.3f} s (goal: <= 1 s)")


if __name__ == "__main__":
    main()
