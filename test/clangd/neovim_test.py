#!/usr/bin/env python3
"""A real editor: Debian's neovim (0.7, built-in LSP client) runs headless on
the test project with torchalias-clangd, and neovim_test.lua writes back what
the editor holds: the libtorch diagnostic, the code actions offered, and the
buffer after the quickfix is applied.

usage: neovim_test.py NVIM CLANGD MOCK_TORCH_INCLUDE
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import SERVER_FLAGS, index_dir, make_project, scratch_dir  # noqa: E402


def main():
    nvim = sys.argv[1]
    clangd, mock_include = map(os.path.abspath, sys.argv[2:4])
    scratch = scratch_dir()
    here = os.path.dirname(os.path.abspath(__file__))
    root = make_project(os.path.join(here, "project"), scratch,
                        ["-std=c++17", "-isystem", mock_include])
    log = os.path.join(root, "nvim-events.jsonl")
    env = dict(os.environ, TORCHALIAS_CLANGD=clangd, TORCHALIAS_NVIM_LOG=log,
               TORCHALIAS_CLANGD_FLAGS=json.dumps(SERVER_FLAGS),
               XDG_STATE_HOME=root, XDG_DATA_HOME=root, XDG_CACHE_HOME=root)
    subprocess.run([nvim, "--headless", "--clean", "-n",
                    "-c", "luafile " + os.path.join(here, "neovim_test.lua"), "model.cpp"],
                   cwd=root, env=env, timeout=900, check=True,
                   stdin=subprocess.DEVNULL)
    events = {}
    with open(log) as lines:
        for line in lines:
            record = json.loads(line)
            events[record["event"]] = record["value"]
    print(json.dumps(events, indent=1))

    assert "error" not in events, events["error"]
    diagnostics = events["diagnostics"]
    assert len(diagnostics) == 1, diagnostics
    assert diagnostics[0]["code"] == "libtorch-inplace-on-view", diagnostics
    assert (diagnostics[0]["lnum"], diagnostics[0]["col"]) == (4, 7), diagnostics
    assert "'zero_' writes in place to 'head'" in diagnostics[0]["message"], diagnostics
    assert events["code actions"] == ["insert '.clone()'"], events["code actions"]
    after = events["after fix"]
    assert after["diagnostics"] == [], after
    assert "  auto head = input.narrow(0, 0, 1).clone();" in after["lines"], after
    assert not os.path.exists(index_dir(root)), "a background index was built"
    print("ok: neovim shows the libtorch diagnostic, offers its fix, and the fix clears it")


if __name__ == "__main__":
    main()
