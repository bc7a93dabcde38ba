#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Study of choice rules for an event loop's calls (issue 9), on a kept run.

For every call the gateway sends to the back end, each rule picks one of the
requests open on the gateway (read, not yet replied to) from what its socket
operations show: arrival, last input (the request, or a reply to one of its
calls), calls in flight.  Which request a reply belongs to is either the
rule's own earlier choice (--own chosen: what an analyzer could do) or the
truth (--own truth: an upper bound, since no analyzer knows it).  Prints
links and paths right per rule, and before them how often what the loop
sends right after reading a call's reply belongs to that call's request.  Not a test: docs/analyzer.md (stage 5b)
records what it showed.

    python3 tests/evloop/rules.py --dir /tmp/ev [--own chosen|truth]
"""

import argparse
import json
import os
import sys

import gwops

def messages(d, analyze, request_of):
    """The gateway's messages in order: (ts, kind, request id or call id)."""
    out = []
    for ts, _, op, _, kind, who, k, starts in gwops.operations(analyze,
                                                               os.path.join(d, "gateway.vpr")):
        if not starts:
            continue
        if kind == "client":
            out.append((ts, "request" if op == "recv" else "reply", request_of.get((who, k))))
        else:
            out.append((ts, "call" if op == "send" else "call-reply", (who, k)))
    return out


def pick(rule, open_, s):
    """The request rule names among open_ (state s: arrive, last_in, inflight, last)."""
    def oldest_input(among):
        return min(among or open_, key=lambda r: s["last_in"][r])
    if rule == "last-input":
        return s["last"] if s["last"] in open_ else max(open_, key=lambda r: s["arrive"][r])
    if rule == "oldest-input":
        return oldest_input(open_)
    if rule == "oldest-input-idle":  # a FIFO pool's longest waiter, if waiters have no call out
        return oldest_input([r for r in open_ if s["inflight"][r] == 0])
    if rule == "earliest-arrival":
        return min(open_, key=lambda r: s["arrive"][r])
    raise ValueError(rule)


def run(rule, events, call_owner, truth_own):
    own = {}
    s = {"arrive": {}, "last_in": {}, "inflight": {}, "last": None}
    open_ = set()
    for ts, kind, x in events:
        if kind == "request":
            s["arrive"][x] = s["last_in"][x] = ts
            s["inflight"][x] = 0
            s["last"] = x
            open_.add(x)
        elif kind == "reply":
            open_.discard(x)
        elif kind == "call-reply":
            r = call_owner.get(x) if truth_own else own.get(x)
            if r in s["inflight"]:
                s["last_in"][r] = ts
                s["inflight"][r] -= 1
                s["last"] = r
        elif open_:
            own[x] = pick(rule, open_, s)
            r = call_owner.get(x) if truth_own else own[x]
            if r in s["inflight"]:
                s["inflight"][r] += 1
    return own


def signals(events, call_owner):
    """How often a message right after reading call c's reply (no input between) is c's request's."""
    counts = {"its reply": [0, 0], "a call on another connection": [0, 0],
              "a call on c's connection": [0, 0]}
    last = None
    for _, kind, x in events:
        if kind in ("request", "call-reply"):
            last = x if kind == "call-reply" else None
            continue
        if last is None:
            continue
        if kind == "reply":
            k, same = "its reply", call_owner.get(last) == x
        else:
            k = "a call on c's connection" if x[0] == last[0] else "a call on another connection"
            same = call_owner.get(last) == call_owner.get(x)
        counts[k][0] += same
        counts[k][1] += 1
    for k, (right, n) in counts.items():
        print("# after c's reply, %-30s is c's request's: %d/%d" % (k, right, n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--own", choices=("chosen", "truth"), default="chosen")
    ap.add_argument("--analyze", default=os.path.join(os.environ.get("OUTPUT", ".output"),
                                                      "vpath-analyze"))
    args = ap.parse_args()
    try:
        truth = [json.loads(line) for line in open(os.path.join(args.dir, "truth.jsonl"))]
    except OSError as e:
        sys.exit("rules.py: %s" % e)
    request_of = {(t["client"], t["conn_index"]): t["id"] for t in truth}
    call_owner = {tuple(c): t["id"] for t in truth for c in t["calls"]}
    events = messages(args.dir, args.analyze, request_of)
    ncalls = len(call_owner)
    signals(events, call_owner)
    print("# %s, ownership of replies: %s" % (args.dir, args.own))
    for rule in ("last-input", "oldest-input", "oldest-input-idle", "earliest-arrival"):
        own = run(rule, events, call_owner, args.own == "truth")
        links = sum(own.get(c) == r for c, r in call_owner.items())
        under = {}
        for c, r in own.items():
            under.setdefault(r, set()).add(c)
        paths = sum(under.get(t["id"], set()) == set(map(tuple, t["calls"])) for t in truth)
        print("%-18s links %5d/%d (%5.1f%%)  paths %4d/%d (%5.1f%%)" % (
            rule, links, ncalls, 100.0 * links / ncalls, paths, len(truth),
            100.0 * paths / len(truth)))


if __name__ == "__main__":
    main()
