#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores vpath-analyze's paths (found.json) against the client's truth
(truth.jsonl) for tests/pgbouncer (README.md).

A request is found when a path enters the app on its (client ip:port,
ordinal). Its calls are the app's calls to the relay (PgBouncer, haproxy),
each with the calls the relay made under it to PostgreSQL; statements are
read from the calls' witnesses (the captured bytes: the text the app sent,
which names its request). A request is right when the statements of its
calls to the relay are exactly those the app says it ran, and under each of
them the relay's calls carrying a request's comment are exactly one, of the
same statement. A statement the app ran for several requests (app.py
--shared) is right under any call of the same text (the bytes cannot tell
which), and such calls may be linked by their bytes (`forwarded`) at most
once per statement: its first run, before any other request carried the same
bytes (the analyzer cannot know later runs; from the second on, bytes seen
before decide nothing): that is a gate. The relay's own statements (no
comment) are counted apart. A link relay -> PostgreSQL is right when its
statement is that of the call it hangs under.

Gates (exit 1): every request found, every request and every link marked
exact right, at least --min-accuracy percent of the requests right.
Prints the figures and the links' bases; wrong requests go to --failures.
--break move|lose scores a broken copy instead, to show the gates can fail:
one relay -> PostgreSQL call, exact, moved under another request's
call (its flags kept), or one request left out."""
import argparse
import collections
import json
import re
import sys

TAG = re.compile(r"/\* request (\d+) step (\d+) \*/")


def statement(call):
    w = call.get("witness") or {}
    return w.get("statement") or w.get("label") or ""


def broken(found, args):
    """Breaks found as --break says (see the docstring)."""
    reqs = [r for r in found["requests"] if r["root"]["server"]["addr"] == args.app]
    if args.brk == "lose":
        found["requests"].remove(reqs[0])
        return
    pgb = [c for r in reqs for c in r["root"]["calls"] if c["server"]["addr"] == args.relay
           and c["calls"]]
    call = pgb[0]["calls"].pop(0)
    call["link"]["exact"] = True
    pgb[-1]["calls"].append(call)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--truth", required=True)
    ap.add_argument("--found", required=True)
    ap.add_argument("--app", required=True)
    ap.add_argument("--relay", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--min-accuracy", type=float, default=0)
    ap.add_argument("--failures")
    ap.add_argument("--break", dest="brk", choices=["move", "lose"])
    args = ap.parse_args()
    truth = [json.loads(l) for l in open(args.truth)]
    found = json.load(open(args.found))
    if args.brk:
        broken(found, args)
    times = collections.Counter(s for t in truth for s in t["statements"])
    shared = {s for s, v in times.items() if v > 1}
    shared_links = collections.Counter()  # basis
    by_conn = {}
    for r in found["requests"]:
        root = r["root"]
        if root["server"]["addr"] == args.app:
            by_conn[(root["client"]["addr"], root["conn_index"])] = r
    n_found = right = exact = exact_wrong = 0
    links = collections.Counter()  # (basis, exact, right)
    untagged = 0
    failures = []
    for t in truth:
        r = by_conn.get((t["addr"], t["conn_index"]))
        if not r:
            failures.append({"id": t["id"], "why": "not found"})
            continue
        n_found += 1
        pgb = [c for c in r["root"]["calls"] if c["server"]["addr"] == args.relay]
        ok = sorted(statement(c) for c in pgb) == sorted(t["statements"])
        for c in pgb:
            tagged = []
            for d in c["calls"]:
                if d["server"]["addr"] != args.db:
                    continue
                s = statement(d)
                if s in shared:
                    shared_links[d["link"]["basis"]] += 1
                    tagged.append(s)
                    continue
                if not TAG.search(s):
                    untagged += 1
                    continue
                tagged.append(s)
                good = s == statement(c)
                links[(d["link"]["basis"], d["link"]["exact"], good)] += 1
            ok = ok and tagged == [statement(c)]
        right += ok
        exact += bool(r["exact"])
        if r["exact"] and not ok:
            exact_wrong += 1
        if not ok:
            failures.append({"id": t["id"], "truth": t["statements"],
                             "found": [[statement(c), [statement(d) for d in c["calls"]]]
                                       for c in pgb]})
    n = len(truth)
    acc = 100.0 * right / n if n else 0
    exact_links_wrong = sum(v for (b, e, g), v in links.items() if e and not g)
    print("requests %d, found %d (%.1f%%), right %d (%.2f%%), marked exact %d (%.1f%%), "
          "exact wrong %d" % (n, n_found, 100.0 * n_found / max(n, 1), right, acc, exact,
                              100.0 * exact / max(n, 1), exact_wrong))
    print("links relay -> PostgreSQL: %d, exact wrong %d; the relay's own statements %d"
          % (sum(links.values()), exact_links_wrong, untagged))
    bases = collections.defaultdict(lambda: [0, 0, 0])
    for (b, e, g), v in links.items():
        bases[b][0] += v
        bases[b][1] += v if e else 0
        bases[b][2] += v if g else 0
    for b, (v, e, g) in sorted(bases.items()):
        print("  basis %-13s %6d links, %6d exact, %6d right" % (b, v, e, g))
    if shared:
        print("links of statements several requests ran: %d, by basis %s"
              % (sum(shared_links.values()), dict(sorted(shared_links.items()))))
    if args.failures:
        with open(args.failures, "w") as f:
            for x in failures:
                f.write(json.dumps(x) + "\n")
    gates = [("every request found", n_found == n and n > 0),
             ("every request marked exact right", exact_wrong == 0),
             ("every link marked exact right", exact_links_wrong == 0),
             ("a statement several requests ran linked by its bytes at most once (its first run)",
              shared_links["forwarded"] <= len(shared)),
             ("at least %g%% of the requests right" % args.min_accuracy, acc >= args.min_accuracy)]
    for name, good in gates:
        print("%s - %s" % ("ok" if good else "not ok", name))
    return 0 if all(g for _, g in gates) else 1


if __name__ == "__main__":
    sys.exit(main())
