#!/usr/bin/env python3
"""A scripted LSP session with torchalias-clangd on a project whose only
configuration is a `.clang-tidy` (or a `.clangd`) enabling libtorch-*.

It asserts what an editor user sees: the libtorch diagnostic with its range
and its note as related information, the fix offered as a code action, the
diagnostic gone once the edit is applied, a new finding appearing as it is
typed, and NOLINT silencing one.

usage: lsp_session_test.py CLANGD MOCK_TORCH_INCLUDE
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import (LspClient, apply_edits, index_dir, make_project, scratch_dir,  # noqa: E402
                        server_argv)

CHECK = "libtorch-inplace-on-view"
failures = []


def expect(condition, message, detail=None):
    status = "ok  " if condition else "FAIL"
    print(f"{status} {message}")
    if not condition:
        failures.append(message)
        if detail is not None:
            print(f"     got: {detail}")
    return condition


def libtorch(diagnostics):
    return [d for d in diagnostics if str(d.get("code", "")).startswith("libtorch-")]


def main():
    clangd, mock_include = map(os.path.abspath, sys.argv[1:3])
    scratch = scratch_dir()
    here = os.path.dirname(os.path.abspath(__file__))
    root = make_project(os.path.join(here, "project"), os.path.join(scratch, "dot-clang-tidy"),
                        ["-std=c++17", "-isystem", mock_include])
    path = os.path.join(root, "model.cpp")
    uri = "file://" + path
    text = open(path).read()

    client = LspClient(server_argv(clangd), root)
    try:
        client.initialize(root)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1, "text": text}})

        # 1. The diagnostic, its range and its note.
        found = libtorch(client.diagnostics(uri, version=1))
        if not expect(len(found) == 1, "one libtorch diagnostic on open", found):
            sys.exit("cannot go on without the diagnostic")
        diag = found[0]
        expect(diag["code"] == CHECK, f"the diagnostic is {CHECK}", diag["code"])
        expect(diag.get("source") == "clang-tidy", "its source is clang-tidy", diag.get("source"))
        expect("'zero_' writes in place to 'head', a view of parameter 'input'" in diag["message"],
               "the message names the write and the view", diag["message"])
        # `head.zero_();` is line 4 (0-based); the range covers `zero_`.
        expect(diag["range"]["start"] == {"line": 4, "character": 7}
               and diag["range"]["end"] == {"line": 4, "character": 12},
               "the range is the in-place call's name", diag["range"])
        related = diag.get("relatedInformation", [])
        expect(any(r["location"]["uri"] == uri and r["location"]["range"]["start"]["line"] == 3
                   and "view of parameter 'input' created here" in r["message"].lower()
                   for r in related),
               "related information points at the view's creation on line 3", related)

        # 2. The fix as a code action; applying it removes the diagnostic.
        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diag["range"],
            "context": {"diagnostics": [diag], "only": ["quickfix"]}})["result"] or []
        fixes = [a for a in actions if a.get("kind") == "quickfix" and "edit" in a]
        if not expect(len(fixes) >= 1, "the fix-it is offered as a quickfix code action", actions):
            sys.exit("cannot go on without the code action")
        edits = fixes[0]["edit"]["changes"][uri]
        text = apply_edits(text, edits)
        expect("auto head = input.narrow(0, 0, 1).clone();" in text,
               "the quickfix inserts .clone() after the view", text)
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": text}]})
        expect(libtorch(client.diagnostics(uri, version=2)) == [],
               "after the fix and didChange the diagnostic is gone")

        # 3. Typing a new finding makes it appear.
        text += ("\nvoid scale_row(torch::Tensor x) {\n"
                 "  auto row = x.select(0, 1);\n"
                 "  row.mul_(2);\n"
                 "}\n")
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 3},
            "contentChanges": [{"text": text}]})
        found = libtorch(client.diagnostics(uri, version=3))
        expect(len(found) == 1 and "'mul_' writes in place to 'row'" in found[0]["message"]
               and found[0]["range"]["start"]["line"] == 9,
               "an edit that introduces a finding makes it appear", found)

        # 4. NOLINT silences it.
        text = text.replace("row.mul_(2);", f"row.mul_(2); // NOLINT({CHECK})")
        client.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 4},
            "contentChanges": [{"text": text}]})
        expect(libtorch(client.diagnostics(uri, version=4)) == [], "NOLINT silences the finding")
    finally:
        code = client.close()
        expect(code == 0, "the server shuts down cleanly", code)
    expect(not os.path.exists(index_dir(root)), "the session builds no background index",
           index_dir(root))

    # 5. A project that enables the checks in `.clangd` instead.
    root = make_project(os.path.join(here, "project"), os.path.join(scratch, "dot-clangd"),
                        ["-std=c++17", "-isystem", mock_include])
    os.remove(os.path.join(root, ".clang-tidy"))
    with open(os.path.join(root, ".clangd"), "w") as out:
        out.write("Diagnostics:\n  ClangTidy:\n    Add: ['libtorch-*']\n")
    uri = "file://" + os.path.join(root, "model.cpp")
    client = LspClient(server_argv(clangd), root)
    try:
        client.initialize(root)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1,
            "text": open(os.path.join(root, "model.cpp")).read()}})
        found = libtorch(client.diagnostics(uri, version=1))
        expect([d["code"] for d in found] == [CHECK],
               "a .clangd that adds libtorch-* is enough", found)
    finally:
        client.close()

    if failures:
        print(f"{len(failures)} expectation(s) failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
