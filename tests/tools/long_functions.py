#!/usr/bin/env python3
"""List the C functions longer than a limit (issue 24: none outside tests over 100 lines).

usage: long_functions.py [--max N] [PATH...]

PATHs are C files or directories searched for *.c and *.h (default: the
program's sources, bpf/ user/ common/ analyzer/ include/, tests left out).
A function's length is its lines from the one that names it to its closing
brace.  The tree's style (the kernel's, as clang-format keeps it) puts a
function's braces alone at the start of a line, and nothing else's: a
line "{" opens a body, the next line "}" closes it, and the name is the
identifier before the first "(" of the lines above the "{" back to the
previous blank, "}" or ";" line.  Prints "LENGTH FILE:LINE NAME", longest
first; exits 1 when there is any.
"""
import os
import re
import sys

DEFAULT_PATHS = ["bpf", "user", "common", "analyzer", "include"]


def sources(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.join(root, f)


def functions(path):
    """(name, first line, length) of each function defined in path."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != "{":
            i += 1
            continue
        # The signature: back to a blank line, a closing brace or a statement's end.
        start = i
        while start > 0 and lines[start - 1].strip() and not re.match(
            r"^(}|.*;\s*$|#|\s*\*/\s*$)", lines[start - 1]
        ):
            start -= 1
        head = " ".join(lines[start:i])
        m = re.search(r"([A-Za-z_]\w*)\s*\(", head)
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "}":
            end += 1
        if m:
            yield m.group(1), start + 1, end - start + 1
        i = end + 1


def main(argv):
    limit = 100
    if len(argv) >= 2 and argv[0] == "--max":
        limit = int(argv[1])
        argv = argv[2:]
    found = []
    for path in sources(argv or DEFAULT_PATHS):
        for name, line, length in functions(path):
            if length > limit:
                found.append((length, f"{path}:{line}", name))
    for length, where, name in sorted(found, key=lambda f: (-f[0], f[1])):
        print(f"{length} {where} {name}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
