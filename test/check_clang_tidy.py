#!/usr/bin/env python3
"""Runs one lit test file through a clang-tidy and checks its expectations.

usage: check_clang_tidy.py --tidy CMD --filecheck PATH
           [--check-suffix SUFFIX] [--fix-notes]
           INPUT CHECK TEMP [-- TIDY_ARGS...] [-- COMPILER_ARGS...]

The semantics follow clang-tidy's own test runner:
  * INPUT is copied to TEMP.cpp, with the CHECK lines blanked so that they
    cannot match themselves, and clang-tidy runs on the copy with --fix and
    only CHECK enabled.
  * CHECK-MESSAGES lines are matched against the warnings, CHECK-NOTES lines
    against warnings and notes; any other warning, note or error fails the
    test.
  * CHECK-FIXES lines are matched against the fixed copy; without any, the
    copy must be unchanged. A fixed copy must still compile.
  * A file without CHECK-MESSAGES or CHECK-NOTES is a negative test: clang-tidy
    must print no warning at all.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys


def fail(message, output=None):
    sys.stderr.write("check_clang_tidy: " + message + "\n")
    if output:
        sys.stderr.write("------ clang-tidy output ------\n" + output +
                         "\n------------------------------\n")
    sys.exit(1)


def split_args(argv):
    """OPTIONS -- TIDY_ARGS -- COMPILER_ARGS, the last two parts optional."""
    if "--" not in argv:
        return argv, [], []
    cut = argv.index("--")
    own, rest = argv[:cut], argv[cut + 1:]
    if "--" not in rest:
        return own, rest, []
    cut = rest.index("--")
    return own, rest[:cut], rest[cut + 1:]


def filecheck(filecheck_path, check_file, prefix, text, extra):
    command = [filecheck_path, check_file, "--check-prefix=" + prefix,
               "--strict-whitespace", "--dump-input=never"] + extra
    result = subprocess.run(command, input=text, text=True,
                            capture_output=True)
    if result.returncode != 0:
        fail(prefix + " did not match:\n" + result.stderr, text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tidy", required=True,
                        help="clang-tidy command, e.g. 'clang-tidy-19 --load=X'")
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--check-suffix", "-check-suffix", default="")
    parser.add_argument("--fix-notes", action="store_true")
    parser.add_argument("input")
    parser.add_argument("check")
    parser.add_argument("temp")
    own, tidy_args, compiler_args = split_args(sys.argv[1:])
    args = parser.parse_args(own)

    suffix = "-" + args.check_suffix if args.check_suffix else ""
    messages_prefix = "CHECK-MESSAGES" + suffix
    notes_prefix = "CHECK-NOTES" + suffix
    fixes_prefix = "CHECK-FIXES" + suffix

    with open(args.input, encoding="utf-8") as f:
        original = f.read()
    has_messages = re.search(r"\b" + messages_prefix + r":", original)
    has_notes = re.search(r"\b" + notes_prefix + r":", original)
    has_fixes = re.search(r"\b" + fixes_prefix + r":", original)
    if has_messages and has_notes:
        fail("use either %s or %s, not both" % (messages_prefix, notes_prefix))

    cleaned = re.sub(r"//\s*CHECK-[A-Z0-9-]+:[^\r\n]*", "//", original)
    temp_file = args.temp + ".cpp"
    os.makedirs(os.path.dirname(os.path.abspath(temp_file)), exist_ok=True)
    with open(temp_file, "w", encoding="utf-8") as f:
        f.write(cleaned)

    command = shlex.split(args.tidy) + [
        temp_file, "--fix" if not args.fix_notes else "--fix-notes",
        "--checks=-*," + args.check] + tidy_args + [
        "--"] + compiler_args
    result = subprocess.run(command, text=True, capture_output=True)
    # Keep only diagnostics; drop the source excerpts and fix-it lines that
    # follow each one, so that FileCheck sees one line per diagnostic.
    output = "\n".join(
        line for line in (result.stdout + result.stderr).splitlines()
        if (re.match(r"^\S.*:\d+:\d+: (warning|error|note): ", line) or
            line.startswith("error:")) and
        not line.endswith("note: FIX-IT applied suggested code changes"))
    if result.returncode not in (0, 1):
        fail("clang-tidy crashed or failed (exit %d)" % result.returncode,
             result.stdout + result.stderr)
    if re.search(r"(^|\s)error:", output) and "error:" not in original:
        fail("clang-tidy reported errors", result.stdout + result.stderr)

    with open(temp_file, encoding="utf-8") as f:
        fixed = f.read()

    if has_notes:
        filecheck(args.filecheck, args.input, notes_prefix, output,
                  ["--implicit-check-not={{note|warning|error}}:"])
    elif has_messages:
        warnings = "\n".join(l for l in output.splitlines()
                             if ": note: " not in l)
        filecheck(args.filecheck, args.input, messages_prefix, warnings,
                  ["--implicit-check-not={{warning|error}}:"])
    elif re.search(r": (warning|error): ", output):
        fail("expected no diagnostics (no %s lines in the test)" %
             messages_prefix, output)

    if has_fixes:
        filecheck(args.filecheck, args.input, fixes_prefix, fixed, [])
    if fixed != cleaned:
        # Fix-its must compile: the fixed copy is parsed again.
        recheck = subprocess.run(
            shlex.split(args.tidy) + [temp_file, "--checks=-*," + args.check] +
            tidy_args + ["--"] + compiler_args, text=True, capture_output=True)
        if re.search(r": error: ", recheck.stdout + recheck.stderr):
            fail("the fixed file does not compile", recheck.stdout + recheck.stderr)
        if not has_fixes:
            fail("clang-tidy changed the file but the test has no %s lines" %
                 fixes_prefix, fixed)


if __name__ == "__main__":
    main()
