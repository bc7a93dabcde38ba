#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores vpath's paths and the two statistical baselines against the vApp's truth.

  baseline_score.py [DIR] [--label TEXT] [--header]

`par` is the nesting algorithm's mean parallelism (candidate parents per
call that had any: the paper's x axis in §7.5.3).
DIR holds what tests/e2e/run.sh --keep leaves (truth.jsonl, topology.json,
found.json from `paths --json`) and nesting.json, convolution.json from
`vpath-analyze baseline --nesting|--convolution --json`.  Prints one table row.

  vpath, nesting  per request, as tests/e2e/vpcompare.py scores paths:
                  completeness = true requests found as roots (same
                  connection and ordinal); accuracy = found requests whose
                  whole tree (servers, order, identity of every call) is true.
  convolution     has no requests, only a graph of edges with delays, so
                  per causal step: a true step (i, j, k) is a message i -> j
                  followed, in the same visit to server j, by a message
                  j -> k (calls and returns both).  completeness = true
                  immediate steps (the next message j sent), weighted by how
                  often they happen, that are an edge of the graph under
                  i -> j; accuracy = edges of the graph whose whole path
                  from the root (client -> t1 -> t2 -> ...) is a chain of
                  messages, in order, of at least one true request.
"""
import argparse
import bisect
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
import vpcompare  # noqa: E402


def per_request(d, found_name, topo, truth):
    path = os.path.join(d, found_name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        found = json.load(f)
    cmp = vpcompare.Comparison(truth, found, topo)
    rows = cmp.requests()
    n = len(rows)
    nfound = sum(1 for r in rows if r["found"])
    nexact = sum(1 for r in rows if r["exact"])
    return vpcompare.pct(nfound, n), vpcompare.pct(nexact, nfound)


def true_steps(truth):
    """(i, j, k) -> times: immediate steps; and the set of every causal step."""
    immediate, anywhere = {}, set()
    for root in truth:
        for node, parent, _ in vpcompare.walk(root):
            caller = parent["server"] if parent else "client"
            b = node["server"]
            # The visit at b: in from the caller, then out/in per call, out to the caller.
            seq = [("in", caller)]
            for c in node.get("calls", []):
                seq += [("out", c["server"]), ("in", c["server"])]
            seq.append(("out", caller))
            for x in range(len(seq)):
                if seq[x][0] != "in":
                    continue
                for y in range(x + 1, len(seq)):
                    if seq[y][0] == "out":
                        step = (seq[x][1], b, seq[y][1])
                        anywhere.add(step)
                        if y == x + 1:
                            immediate[step] = immediate.get(step, 0) + 1
    return immediate, anywhere


def hops(node, caller):
    """A request's messages in order: the call, its calls' messages, the return."""
    out = [(caller, node["server"])]
    for c in node.get("calls", []):
        out += hops(c, node["server"])
    out.append((node["server"], caller))
    return out


def chained(edges, name, truth):
    """Per edge: is its path from the root a subsequence of some true request's messages?"""
    shapes = {tuple(hops(r, "client")) for r in truth}
    index = []
    for seq in shapes:
        where = {}
        for i, h in enumerate(seq):
            where.setdefault(h, []).append(i)
        index.append(where)
    state = []  # per edge: per shape, the earliest position its path can end at, or None
    right = 0
    for e in edges:
        hop = (name[e["from"]], name[e["to"]])
        prev = state[e["parent"]] if e["parent"] >= 0 else [-1] * len(index)
        cur = []
        for where, p in zip(index, prev):
            pos = None
            if p is not None:
                lst = where.get(hop, [])
                k = bisect.bisect_right(lst, p)
                pos = lst[k] if k < len(lst) else None
            cur.append(pos)
        state.append(cur)
        right += any(x is not None for x in cur)
    return right


def convolution(d, truth):
    path = os.path.join(d, "convolution.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        conv = json.load(f)
    names = conv["nodes"]
    servers = {s for r in truth for n, _, _ in vpcompare.walk(r) for s in [n["server"]]}
    name = [n if n in servers else "client" for n in names]
    immediate, _ = true_steps(truth)
    edges = conv["edges"]
    found = set()
    for e in edges:
        if e["parent"] >= 0:
            p = edges[e["parent"]]
            found.add((name[p["from"]], name[e["from"]], name[e["to"]]))
    weight = sum(immediate.values())
    got = sum(w for s, w in immediate.items() if s in found)
    return vpcompare.pct(got, weight), vpcompare.pct(chained(edges, name, truth), len(edges))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--label", default="")
    ap.add_argument("--header", action="store_true")
    args = ap.parse_args()
    if args.header:
        print("%-26s %8s %7s %5s | %-15s | %-15s | %-15s" % (
            "run", "requests", "lost", "par", "vpath c/a %", "nesting c/a %", "convolution c/a %"))
    if not args.dir:
        return
    topo = vpcompare.Topology(os.path.join(args.dir, "topology.json"))
    truth, _ = vpcompare.load_truth(os.path.join(args.dir, "truth.jsonl"))
    lost = 0
    with open(os.path.join(args.dir, "found.json")) as f:
        lost = sum(h.get("lost", 0) or 0 for h in json.load(f).get("hosts", []))
    cols = [per_request(args.dir, "found.json", topo, truth),
            per_request(args.dir, "nesting.json", topo, truth),
            convolution(args.dir, truth)]
    par = 0.0
    if os.path.exists(os.path.join(args.dir, "nesting.json")):
        with open(os.path.join(args.dir, "nesting.json")) as f:
            par = json.load(f).get("parallelism", 0.0)
    cells = ["%6.1f /%6.1f" % c if c else "%15s" % "-" for c in cols]
    print("%-26s %8d %7d %5.1f | %s | %s | %s" % (args.label, len(truth), lost, par, *cells))


if __name__ == "__main__":
    main()
