#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores vpath-analyze paths --json against tests/logs' truth, from the
lines' own request ids.

  score.py TRUTH FOUND [--min-own PCT] [--root-rid REGEX] [--label L]
           [--event-loop] [--written LOG,...]

A request's id comes from its root call's witness (REGEX's group 1, default
GET /req/RID/K: the recording captured the served port).  Its lines are
every line in its tree; a line's id is its own rid=N, a line without one is
housekeeping.  Truth lines are {rid, calls} (services.py: start, end, and
one line per call to back) or {rid, want} (want lines naming rid).
Gates (exit 1 when one fails):
- own: at least PCT % (default 99) of the requests the client had answered
  carry exactly their own lines (PCT 0: the share is printed, not gated);
- exact: every line marked exact is on the request its id names;
- housekeeping: no housekeeping line is on any request; with --event-loop,
  none marked exact (an event loop's line written between requests is the
  last input's, inferred: nothing recorded tells it from a request's last line).
--written: the server's own logs, to print how many housekeeping lines they hold.
Prints TAP lines (named "L: ...", default "logs") and the figures: how many
lines are on requests, exact and inferred, and how many of each are right.
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


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def wanted(rid, t):
    """What a request's tree must hold: services.py's exact messages, or a count."""
    if "calls" in t:
        k = t["calls"]
        return Counter(["start rid=%d calls=%d" % (rid, k), "end rid=%d" % rid] +
                       ["call rid=%d j=%d" % (rid, j) for j in range(k)])
    return t["want"]


def has_own(rid, want, trees):
    if len(trees) != 1:
        return False
    if isinstance(want, Counter):
        return Counter(message(l["text"]) for l in trees[0]) == want
    return len(trees[0]) == want and all(line_rid(l) == rid for l in trees[0])


def line_rid(line):
    m = RID.search(message(line["text"]))
    return int(m.group(1)) if m else None


def main():
    truth_path, found_path = sys.argv[1:3]
    min_own = float(option("--min-own", 99))
    root_rid = re.compile(option("--root-rid", r"/req/(\d+)/"))
    label = option("--label", "logs")
    truth = {}
    with open(truth_path) as f:
        for line in f:
            t = json.loads(line)
            truth[t["rid"]] = wanted(t["rid"], t)
    with open(found_path) as f:
        found = json.load(f)
    by_rid = {}
    # [exact, inferred] x [on requests, right]
    on, right = [0, 0], [0, 0]
    exact_wrong = hk_on = hk_exact = 0
    for r in found["requests"]:
        root = r["root"]
        m = root_rid.search(root.get("witness", {}).get("label", ""))
        rid = int(m.group(1)) if m else None
        got = []
        lines_of(root, got)
        for line in got:
            lr = line_rid(line)
            k = 0 if line["exact"] else 1
            on[k] += 1
            if lr is None:
                hk_on += 1
                hk_exact += line["exact"]
            if rid is not None and lr == rid:
                right[k] += 1
            elif line["exact"]:
                exact_wrong += 1
                print("# exact line on the wrong request %s: %s" % (rid, message(line["text"])))
        if rid is not None:
            by_rid.setdefault(rid, []).append(got)
    own = 0
    shown = 0
    for rid, want in truth.items():
        trees = by_rid.get(rid, [])
        if has_own(rid, want, trees):
            own += 1
        elif shown < 5:
            shown += 1
            print("# request %d: want %s, found %s" % (
                rid, sorted(want) if isinstance(want, Counter) else "%d lines" % want,
                [sorted(message(l["text"]) for l in t) for t in trees]))
    pct = 100.0 * own / len(truth) if truth else 0.0
    ok = True
    print("# %d requests answered, %d found with their own lines exactly (%.2f%%); "
          "%d lines on requests: %d exact (%d right), %d inferred (%d right)" % (
              len(truth), own, pct, sum(on), on[0], right[0], on[1], right[1]))
    own_name = ("own lines >= %.0f%% (%.2f%%)" % (min_own, pct) if min_own > 0 else
                "requests answered and scored (%.2f%% with their own lines exactly)" % pct)
    written = 0
    for path in filter(None, option("--written", "").split(",")):
        with open(path, errors="replace") as f:
            written += sum(1 for l in f if not RID.search(l))
    if "--written" in sys.argv:
        print("# %d housekeeping lines written, %d on requests (%d exact)" % (written, hk_on, hk_exact))
    if "--event-loop" in sys.argv:
        hk = ("no housekeeping line marked exact on a request (%d exact, %d inferred)" % (
            hk_exact, hk_on - hk_exact), hk_exact == 0)
    else:
        hk = ("no housekeeping line on a request (%d)" % hk_on, hk_on == 0)
    for name, good in ((own_name, truth and pct >= min_own),
                       ("every exact line on its own request (%d wrong)" % exact_wrong, exact_wrong == 0),
                       hk):
        print("%s - %s: %s" % ("ok" if good else "not ok", label, name))
        ok &= bool(good)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
