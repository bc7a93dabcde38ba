#!/usr/bin/env python3
"""Find test lines where `check NAME COMMAND` is followed by && or || outside the check.

usage: check_lint.py FILE...

`check NAME A && B` runs only A inside the check: B runs after it, and a
false B prints no failure, so that part of the test can never fail.  Prints
FILE:LINE for each such line; exits 1 when there is any.
"""
import shlex
import sys

found = 0
for path in sys.argv[1:]:
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        start = i
        text = lines[i]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i]
        i += 1
        if not text.lstrip().startswith("check "):
            continue
        try:
            lex = shlex.shlex(text, posix=True, punctuation_chars=True)
            lex.whitespace_split = True
            tokens = list(lex)
        except ValueError:
            continue  # a quote or $( ... ) goes on past the line: not a case this finds
        if "&&" in tokens or "||" in tokens:
            print(f"{path}:{start + 1}: check ... && / || (only the first command is checked)")
            found += 1
sys.exit(1 if found else 0)
