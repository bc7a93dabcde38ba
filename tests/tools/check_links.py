#!/usr/bin/env python3
"""Find links in Markdown files that lead nowhere.

usage: check_links.py FILE.md...   (run from the top of the tree)

Checks, in each file:
- every relative link and image, [text](path#anchor): the path exists (from
  the file's folder) and the anchor is a heading of the target, named as
  GitHub names it;
- every path of the tree named in the text (docs/json.md,
  tests/integration/test_local.sh, analyzer/out/): it exists, from the top
  of the tree or from the file's folder (a program, as its .c), but for
  patterns (tests/bench/*.sh) and placeholders (tests/fuzz/open-bugs/FILE);
- every section named after a Markdown file, as in (docs/analyzer.md,
  "Speed"): a heading of that file begins with it.
Code blocks are left out: they show commands, not links.  Prints
FILE:LINE: what, for each; exits 1 when there is any.
"""
import os
import re
import sys

TOP = ("analyzer/", "bpf/", "common/", "docs/", "include/", "scripts/",
       "systemd/", "tests/", "tools/", "user/", "vmlinux/")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w./-])((?:%s)[\w./-]*)" % "|".join(re.escape(t) for t in TOP))
SECTION = re.compile(r"([\w./-]+\.md)[,:] (?:section )?\"([^\"]+)\"")


def slug(heading):
    """The anchor GitHub gives a heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def headings(path):
    """Headings and their anchors, numbered as GitHub numbers repeats."""
    names, anchors, seen = [], set(), {}
    fence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
            continue
        m = None if fence else re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        text = m.group(1).strip()
        names.append(text.replace("`", "").lower())
        a = slug(text)
        n = seen.get(a, 0)
        seen[a] = n + 1
        anchors.add(a if n == 0 else "%s-%d" % (a, n))
    return names, anchors


def resolve(name, here):
    for base in ("", here):
        p = os.path.normpath(os.path.join(base, name))
        if os.path.exists(p):
            return p
    return None


def check(path):
    bad = []
    here = os.path.dirname(path)
    fence = False
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in LINK.findall(line):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(here, file)) if file else path
            if not os.path.exists(dest):
                bad.append((no, "no such file: %s" % target))
            elif anchor and dest.endswith(".md") and anchor not in headings(dest)[1]:
                bad.append((no, "no such heading: %s" % target))
        for name in PATH.findall(LINK.sub("", line)):
            name = name.rstrip(".,;:")
            if "*" in name or re.search(r"/[A-Z_]+$", name):
                continue  # a pattern or a placeholder (tests/fuzz/open-bugs/FILE)
            if resolve(name, here) or resolve(name + ".c", here):
                continue
            bad.append((no, "no such path: %s" % name))
        for file, section in SECTION.findall(line):
            dest = resolve(file, here)
            if dest and not any(h.startswith(section.lower()) for h in headings(dest)[0]):
                bad.append((no, 'no section "%s" in %s' % (section, file)))
    return bad


found = 0
for f in sys.argv[1:]:
    for no, what in check(f):
        print("%s:%d: %s" % (f, no, what))
        found += 1
sys.exit(1 if found else 0)
