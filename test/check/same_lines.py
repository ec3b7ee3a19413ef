"""same_lines.py ORIGINAL INSTRUMENTED: checks that `torchalias instrument`
kept the line numbers: after its two header lines (the include and `#line 1`)
the copy has the original's lines, each the original with text inserted and
nothing removed."""
import sys

original = open(sys.argv[1]).read().split("\n")
copy = open(sys.argv[2]).read().split("\n")
if copy[:2] != ["#include <torchalias/instrument.h>", "#line 1"]:
    sys.exit("the copy does not start with the include and #line 1: %r" % copy[:2])
copy = copy[2:]
if len(copy) != len(original):
    sys.exit("%d lines in the copy, %d in the original" % (len(copy), len(original)))


def is_subsequence(short, long):
    it = iter(long)
    return all(c in it for c in short)


for number, (before, after) in enumerate(zip(original, copy), 1):
    if not is_subsequence(before, after):
        sys.exit("line %d lost text:\n  %s\n  %s" % (number, before, after))
print("same lines: %d" % len(original))
