#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores vpath-analyze's paths (found.json) against the truth of
tests/queue (README.md): the client's (truth.jsonl: each request's id and
its connection's address and ordinal at the web front) and the workers'
(jobs.jsonl: for each request's job, the back-end calls a worker made
for it, by their connection's address and ordinal).

A request is found when a path enters the web front on its (client
ip:port, ordinal).  Its job's work is where the job's back-end calls are:
under that path (right), under another path (wrong), or paths of their own
(roots: not linked).  A request is right when the back-end calls in its
tree are exactly its job's.  A hop is a call linked as asynchronous
(link.async, basis `queued`); one marked exact is right when the back-end
calls under it are exactly those of the job of the request it hangs in
(none of another job's, none of its own missing).  A job several workers
did (pub/sub's fan-out) is a delivery to each: what is under an exact hop
of a worker's calls must be exactly that worker's calls for the job.

Gates (exit 1): every request found, every request and every hop marked
exact right (a request marked exact with no hop is right only when its
job's work is under it: with or without --capture, the analyzer may mark
a publisher's request exact only when it shows the job's work, or when
nothing says the work went elsewhere, and here it always did), at least
--min-accuracy percent of the requests right.
Prints the figures, and how many calls the analyzer marked may_hand_off
(docs/analyzer.md "Hand-offs without payload"); wrong requests go to
--failures.  --break move|lose|exact scores a broken copy instead, to show
the gates can fail: one back-end call of a job moved under another
request's path as an exact hop, one request left out, or every request
marked exact (the analyzer before it saw hand-offs without payload)."""
import argparse
import collections
import json
import sys


def walk(call, hop=None):
    """Yields (call, the nearest asynchronous hop above it or itself)."""
    if call["link"].get("async"):
        hop = call
    yield call, hop
    for c in call["calls"]:
        yield from walk(c, hop)


def key(call):
    return (call["client"]["addr"], call["conn_index"])


def broken(found, args):
    """Breaks found as --break says (see the docstring)."""
    reqs = [r for r in found["requests"] if r["root"]["server"]["addr"] == args.web]
    if args.brk == "lose":
        found["requests"].remove(reqs[0])
        return
    if args.brk == "exact":
        for r in reqs:
            r["exact"] = True
        return
    for r in reqs:
        for parent, _ in walk(r["root"]):
            for c in parent["calls"]:
                if c["server"]["addr"] == args.back:
                    parent["calls"].remove(c)
                    c["link"].update({"async": True, "exact": True, "basis": "queued"})
                    other = reqs[-1] if r is not reqs[-1] else reqs[0]
                    other["root"]["calls"].append(c)
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--jobs", required=True)
    ap.add_argument("--found", required=True)
    ap.add_argument("--web", required=True)
    ap.add_argument("--redis", required=True)
    ap.add_argument("--back", required=True)
    ap.add_argument("--min-accuracy", type=float, default=0)
    ap.add_argument("--failures")
    ap.add_argument("--break", dest="brk", choices=["move", "lose", "exact"])
    args = ap.parse_args()
    truth = [json.loads(line) for line in open(args.truth)]
    jobs, done_by = {}, collections.defaultdict(dict)  # done_by[id][worker]: its calls
    for line in open(args.jobs):
        j = json.loads(line)
        jobs.setdefault(j["id"], set()).update(tuple(c) for c in j["calls"])  # fan-out: all
        done_by[j["id"]][j["worker"]] = {tuple(c) for c in j["calls"]}
    worker_of = {c[0]: w for by in done_by.values() for w, cs in by.items() for c in cs}
    owner = {c: rid for rid, cs in jobs.items() for c in cs}
    found = json.load(open(args.found))
    if args.brk:
        broken(found, args)
    by_key = {}
    where = collections.Counter()  # back-end calls: right, wrong, root
    for r in found["requests"]:
        root = r["root"]
        where["may_hand_off"] += sum(bool(c.get("may_hand_off")) for c, _ in walk(root))
        if root["server"]["addr"] == args.web:
            by_key[key(root)] = r
        elif root["server"]["addr"] == args.back and key(root) in owner:
            where["root"] += 1
    fig = collections.Counter()
    failures = []
    for t in truth:
        r = by_key.get((t["addr"], t["conn_index"]))
        want = jobs.get(t["id"], set())
        if r is None:
            fig["missing"] += 1
            continue
        got, exact_hop = set(), False
        got_by, exact_by = collections.defaultdict(set), set()  # by worker (fan-out)
        for c, hop in walk(r["root"]):
            if c["server"]["addr"] == args.back:
                got.add(key(c))
                got_by[worker_of.get(c["client"]["addr"])].add(key(c))
                if hop is not None and hop["link"]["exact"]:
                    exact_by.add(worker_of.get(c["client"]["addr"]))
                where["right" if owner.get(key(c)) == t["id"] else "wrong"] += 1
            if c["link"].get("async"):
                fig["hops"] += 1
                fig["hops_exact"] += c["link"]["exact"]
                exact_hop |= c["link"]["exact"]
        # The job's calls are all under its hops, so an exact hop must show them all.
        if len(done_by.get(t["id"], {})) > 1:
            mine = done_by[t["id"]]
            fig["hops_exact_wrong"] += any(got_by[w] != mine.get(w, set()) for w in exact_by)
        else:
            fig["hops_exact_wrong"] += exact_hop and got != want
        fig["exact"] += r["exact"]
        fig["exact_nohop_wrong"] += r["exact"] and not exact_hop and got != want
        if got == want:
            fig["right"] += 1
        else:
            failures.append({"id": t["id"], "want": sorted(want), "got": sorted(got)})
    n = len(truth)
    pct = 100.0 * fig["right"] / n if n else 0
    print("requests %d, found %d, right %d (%.1f%%); jobs' back-end calls: %d under their "
          "request, %d under another, %d roots; hops %d (%d exact, %d of those wrong); "
          "requests marked exact %d (%d of them without a hop and their job's work elsewhere); "
          "calls marked may_hand_off %d"
          % (n, n - fig["missing"], fig["right"], pct, where["right"], where["wrong"],
             where["root"], fig["hops"], fig["hops_exact"], fig["hops_exact_wrong"],
             fig["exact"], fig["exact_nohop_wrong"], where["may_hand_off"]))
    if args.failures:
        with open(args.failures, "w") as f:
            for x in failures:
                f.write(json.dumps(x) + "\n")
    ok = n > 0 and fig["missing"] == 0 and fig["hops_exact_wrong"] == 0 and \
        fig["exact_nohop_wrong"] == 0 and pct >= args.min_accuracy
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
