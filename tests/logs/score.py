#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores vpath-analyze paths --json against tests/logs' truth, from the
lines' own request ids.

  score.py TRUTH FOUND [--min-own PCT]

A request's id comes from its root call's witness (GET /req/RID/K, the
recording captured front's port).  Its lines are every line in its tree.
Gates (exit 1 when one fails):
- own: at least PCT % (default 99) of the requests the client had answered
  carry exactly their own lines: start, end, and one per call to back;
- exact: every line marked exact is on the request its id names;
- housekeeping: no housekeeping line is on any request.
Prints TAP lines and the figures.
"""
import json
import re
import sys
from collections import Counter

MSG = re.compile(r" (?:INFO|WARNING|ERROR) (.*)$")
RID = re.compile(r"\brid=(\d+)\b")


def lines_of(call, out):
    for line in call.get("logs", []):
        out.append(line)
    for c in call.get("calls", []):
        lines_of(c, out)


def message(text):
    m = MSG.search(text)
    msg = m.group(1) if m else text
    # services.py may append text to "end" lines (VPATH_LOGS_END_SUFFIX).
    return re.sub(r"^(end rid=\d+) .*", r"\1", msg)


def main():
    truth_path, found_path = sys.argv[1:3]
    min_own = 99.0
    if "--min-own" in sys.argv:
        min_own = float(sys.argv[sys.argv.index("--min-own") + 1])
    truth = {}
    with open(truth_path) as f:
        for line in f:
            t = json.loads(line)
            truth[t["rid"]] = t["calls"]
    with open(found_path) as f:
        found = json.load(f)
    by_rid = {}
    exact_wrong = exact = total = hk_on = 0
    for r in found["requests"]:
        root = r["root"]
        label = root.get("witness", {}).get("label", "")
        m = re.search(r"/req/(\d+)/", label)
        rid = int(m.group(1)) if m else None
        got = []
        lines_of(root, got)
        for line in got:
            msg = message(line["text"])
            lr = RID.search(msg)
            total += 1
            if msg.startswith("housekeeping"):
                hk_on += 1
            if line["exact"]:
                exact += 1
                if rid is None or not lr or int(lr.group(1)) != rid:
                    exact_wrong += 1
                    print("# exact line on the wrong request %s: %s" % (rid, msg))
        if rid is not None:
            by_rid.setdefault(rid, []).append(Counter(message(l["text"]) for l in got))
    own = 0
    shown = 0
    for rid, k in truth.items():
        want = Counter(["start rid=%d calls=%d" % (rid, k), "end rid=%d" % rid] +
                       ["call rid=%d j=%d" % (rid, j) for j in range(k)])
        trees = by_rid.get(rid, [])
        if len(trees) == 1 and trees[0] == want:
            own += 1
        elif shown < 5:
            shown += 1
            print("# request %d: want %s, found %s" % (rid, sorted(want), [sorted(t) for t in trees]))
    pct = 100.0 * own / len(truth) if truth else 0.0
    ok = True
    print("# %d requests answered, %d found with their own lines exactly (%.2f%%); "
          "%d lines on requests, %d exact" % (len(truth), own, pct, total, exact))
    for name, good in (("own lines >= %.0f%% (%.2f%%)" % (min_own, pct), truth and pct >= min_own),
                       ("every exact line on its own request (%d wrong)" % exact_wrong, exact_wrong == 0),
                       ("no housekeeping line on a request (%d)" % hk_on, hk_on == 0)):
        print("%s - logs: %s" % ("ok" if good else "not ok", name))
        ok &= bool(good)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
