#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Compares the paths vpath-analyze found with the vApp client's ground truth.

  vpcompare.py compare --truth T.jsonl --found F.json --topology TOPO.json [--tap] [--failures FILE]
  vpcompare.py check-truth --truth T.jsonl --topology TOPO.json [--requests N] [--same-seed T2.jsonl]
  vpcompare.py fault --truth T.jsonl --found F.json --topology TOPO.json [--tap] [--label X]
      [--after-line N] (a fault cut some requests: tests/e2e/faults.sh)
  vpcompare.py fake-found --truth T.jsonl --topology TOPO.json [--break orphan|swap|drop|relink]
      (the analyzer's JSON as a perfect analyzer would write it, or broken in
      one place: proves the comparison finds each kind of error)

Every call is identified by the caller's ip:port and its ordinal on that
connection: the truth carries both for every call (the vApp servers report
them in their replies), the analyzer reports them as client.addr and
conn_index.  So calls are matched one by one, not by shape:
  completeness  true requests found as roots of the same connection/ordinal
  accuracy      found requests whose whole tree (servers, call order, and
                the identity of every call) equals the truth
  calls         each true inner call found under its true parent (correct),
                as a root of its own (orphaned), under another parent
                (mis-linked), or not at all (missing)
Exit status 1 when completeness or accuracy is below 100%.
"""
import argparse
import json
import statistics
import sys


# vApp's threading models and the names the analyzer gives them (docs/json.md).
ANALYZER_MODEL = {"thread": "thread-per-request", "workers": "dispatcher-worker",
                  "epoll": "event-driven"}


def key_of(addr, server, index):
    # The server is part of a call's identity: one local port can serve two
    # connections to different servers at once (Linux picks ephemeral ports
    # per destination).
    return (addr, server, int(index))


def load_truth(path):
    roots, errors = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                sys.exit(f"vpcompare: {path}:{n}: not JSON")
            obj["line"] = n
            (errors if "error" in obj else roots).append(obj)
    return roots, errors


def walk(node, parent=None, depth=0):
    """Yields (node, parent, depth) in call order, pre-order."""
    yield node, parent, depth
    for child in node.get("calls", []):
        yield from walk(child, node, depth + 1)


class Topology:
    def __init__(self, path):
        with open(path) as f:
            servers = json.load(f)
        self.by_addr = {s["addr"]: s["name"] for s in servers}
        self.by_name = {s["name"]: s["addr"] for s in servers}
        self.model = {s["name"]: s["model"] for s in servers}

    def name(self, addr):
        return self.by_addr.get(addr, "?" + str(addr))


def truth_key(node):
    return key_of(node["client"], node["server"], node["conn_index"])


def found_key(node, topo):
    return key_of(node["client"]["addr"], topo.name(node["server"]["addr"]), node["conn_index"])


def shape(node, name_of, key_of_node, with_keys):
    """Canonical text of a tree: names in call order, optionally identities."""
    label = name_of(node)
    if with_keys:
        addr, _, index = key_of_node(node)
        label += "@%s#%d" % (addr, index)
    calls = node.get("calls", [])
    if calls:
        label += "(" + ",".join(shape(c, name_of, key_of_node, with_keys) for c in calls) + ")"
    return label


def pct(n, d):
    return 100.0 * n / d if d else 100.0


class Comparison:
    def __init__(self, truth_roots, found, topo):
        self.topo = topo
        self.truth_roots = truth_roots
        self.found = found
        self.true_parent = {}  # call key -> parent call key (None for a root)
        self.true_server = {}
        for root in truth_roots:
            for node, parent, _ in walk(root):
                k = truth_key(node)
                self.true_parent[k] = truth_key(parent) if parent else None
                self.true_server[k] = node["server"]
        self.found_parent = {}
        self.found_roots = {}
        for req in found.get("requests", []):
            root = req["root"]
            self.found_roots[self.found_key(root)] = req
            for node, parent, _ in walk(root):
                self.found_parent[self.found_key(node)] = (self.found_key(parent) if parent
                                                           else None)

    def found_key(self, node):
        return found_key(node, self.topo)

    def found_name(self, node):
        return self.topo.name(node["server"]["addr"])

    def requests(self):
        """Per true request: found?, exact?, rt error; and per-model tallies."""
        rows = []
        for root in self.truth_roots:
            req = self.found_roots.get(truth_key(root))
            exact = False
            rt_err = None
            if req:
                t = shape(root, lambda n: n["server"], truth_key, True)
                f = shape(req["root"], self.found_name, self.found_key, True)
                exact = t == f
                rt_err = req["root"]["duration_ns"] - root["rt_ns"]
            models = {self.topo.model.get(n["server"], "?") for n, _, _ in walk(root)}
            rows.append({"truth": root, "found": req, "exact": exact, "rt_err": rt_err,
                         "models": models})
        return rows

    def calls(self):
        """Classifies every true inner call; counts found calls unknown to the truth."""
        tally = {"correct": 0, "orphaned": 0, "mis-linked": 0, "missing": 0}
        for k, parent in self.true_parent.items():
            if parent is None:
                continue
            if k not in self.found_parent:
                verdict = "missing"
            elif self.found_parent[k] is None:
                verdict = "orphaned"
            elif self.found_parent[k] == parent:
                verdict = "correct"
            else:
                verdict = "mis-linked"
            tally[verdict] += 1
        unknown = sum(1 for k in self.found_parent if k not in self.true_parent)
        return tally, unknown

    def visits(self):
        """Per threading model: the server's visits (requests it served) whose
        calls the analyzer found exactly (same calls, same order).  This is
        where a threading model is handled right or wrong."""
        found_calls = {}
        for req in self.found.get("requests", []):
            for node, _, _ in walk(req["root"]):
                found_calls[self.found_key(node)] = [self.found_key(c) for c in node["calls"]]
        by_model = {}
        for root in self.truth_roots:
            for node, _, _ in walk(root):
                m = self.topo.model.get(node["server"], "?")
                v = by_model.setdefault(m, {"exact": 0, "total": 0})
                v["total"] += 1
                want = [truth_key(c) for c in node["calls"]]
                v["exact"] += found_calls.get(truth_key(node)) == want
        return by_model


def fmt_us(ns):
    return "%.1f us" % (ns / 1000.0)


def print_table(rows, lines):
    width = max(len(r[0]) for r in rows)
    for label, value in rows:
        lines.append("  %-*s  %s" % (width, label, value))


def load_comparison(args):
    """The client's truth and the analyzer's paths, compared; and the
    requests the client saw fail."""
    truth_roots, truth_errors = load_truth(args.truth)
    with open(args.found) as f:
        found = json.load(f)
    return Comparison(truth_roots, found, Topology(args.topology)), truth_errors


def compare(args):
    cmp, truth_errors = load_comparison(args)
    topo, truth_roots, found = cmp.topo, cmp.truth_roots, cmp.found
    rows = cmp.requests()
    tally, unknown = cmp.calls()
    visits_by_model = cmp.visits()
    n = len(rows)
    nfound = sum(1 for r in rows if r["found"])
    nexact = sum(1 for r in rows if r["exact"])
    true_root_keys = {truth_key(r) for r in truth_roots}
    extra_roots = [k for k in cmp.found_roots
                   if k not in true_root_keys and k not in cmp.true_parent]
    incomplete = sum(1 for r in found.get("requests", []) if not r.get("complete", True))
    # Evidence (docs/json.md): a path the analyzer marks exact must be right.
    marked = [r for r in rows if r["found"] and r["found"].get("exact")]
    marked_wrong = sum(1 for r in marked if not r["exact"])
    errs = sorted(abs(r["rt_err"]) for r in rows if r["rt_err"] is not None)
    lost = sum(h.get("lost", 0) or 0 for h in found.get("hosts", []))

    lines = ["accuracy: vpath-analyze paths vs. vApp ground truth" +
             (" (%s)" % args.label if args.label else "")]
    table = [
        ("true requests", "%d (%d client errors)" % (n, len(truth_errors))),
        ("completeness (found)", "%d/%d = %.2f%%" % (nfound, n, pct(nfound, n))),
        ("accuracy (exact paths)", "%d/%d = %.2f%%" % (nexact, nfound, pct(nexact, nfound))),
        ("inner calls", "%d correct, %d orphaned, %d mis-linked, %d missing" %
         (tally["correct"], tally["orphaned"], tally["mis-linked"], tally["missing"])),
        ("found roots not in truth", "%d (calls unknown to the truth: %d)" %
         (len(extra_roots), unknown)),
        ("requests marked incomplete", str(incomplete)),
        ("paths marked exact", "%d/%d = %.2f%% (%d of them wrong)" %
         (len(marked), nfound, pct(len(marked), nfound), marked_wrong)),
        ("records lost (all hosts)", str(lost)),
    ]
    if errs:
        table.append(("response time |error|", "median %s, p99 %s, max %s" % (
            fmt_us(statistics.median(errs)), fmt_us(errs[int(0.99 * (len(errs) - 1))]),
            fmt_us(errs[-1]))))
    print_table(table, lines)
    lines.append("")
    lines.append("  %-9s %24s %20s %20s" % ("model", "visits with exact calls",
                                            "paths through it", "exact"))
    model_ok = {}
    for m in sorted(set(topo.model.values())):
        touching = [r for r in rows if m in r["models"]]
        f = sum(1 for r in touching if r["found"])
        e = sum(1 for r in touching if r["exact"])
        v = visits_by_model.get(m, {"exact": 0, "total": 0})
        lines.append("  %-9s %24s %20s %20s" % (
            m, "%d/%d" % (v["exact"], v["total"]), len(touching), "%d/%d" % (e, f)))
        model_ok[m] = (v["total"] > 0 and v["exact"] == v["total"], v)
    detected = {}
    for p in found.get("processes", []):
        detected[(p.get("host"), p.get("pid"))] = p.get("model")
    servers_seen = {}
    for req in found.get("requests", []):
        for node, _, _ in walk(req["root"]):
            s = node["server"]
            servers_seen[(s.get("host"), s.get("pid"))] = topo.name(s["addr"])
    pairs = []
    if detected:
        pairs = sorted({(name, topo.model.get(name, "?"), detected.get(hp) or "-")
                        for hp, name in servers_seen.items()})
        lines.append("")
        lines.append("  threading model per server (configured -> found by the analyzer):")
        line = " "
        for i, p in enumerate(pairs):
            item = " %s %s->%s%s" % (p + ("," if i < len(pairs) - 1 else "",))
            if len(line) + len(item) > 96:
                lines.append(line)
                line = " "
            line += item
        lines.append(line)
    out = sys.stdout
    for line in lines:
        print(("# " if args.tap else "") + line if line else ("#" if args.tap else ""), file=out)

    failures = [r for r in rows if not r["exact"]]
    if failures:
        print(("# " if args.tap else "") + "first wrong paths (truth | found):", file=out)
        for r in failures[:5]:
            # names only, unless only the identities of the calls differ
            keyed = False
            while True:
                t = shape(r["truth"], lambda n: n["server"], truth_key, keyed)
                f = (shape(r["found"]["root"], cmp.found_name, cmp.found_key, keyed)
                     if r["found"] else "(not found)")
                if t != f or keyed:
                    break
                keyed = True
            print(("#   " if args.tap else "    ") + "%s\n%s  | %s" %
                  (t, "#   " if args.tap else "    ", f), file=out)
    # A wrong path marked exact is the worst outcome: say on what it rested,
    # since a CI log may be all there is of the run.
    wrong_exact = [r for r in failures if r["found"] and r["found"].get("exact")]
    for r in wrong_exact[:2]:
        p = "# " if args.tap else ""
        print(p + "wrong, yet marked exact (found: server@host pid/tid client->server addr"
              " [start_ns +duration] link basis/candidates):", file=out)
        for line in exact_story(r["found"]["root"]):
            print(p + "  " + line, file=out)
        print(p + "  truth: " + json.dumps(r["truth"], separators=(",", ":"))[:1500], file=out)
    if args.failures and failures:
        print(("# " if args.tap else "") + "all wrong paths: " + args.failures, file=out)
    if args.failures:
        with open(args.failures, "w") as f:
            for r in failures:
                f.write(json.dumps({"truth": r["truth"], "found": r["found"]}) + "\n")

    ok = n > 0 and nfound == n and nexact == nfound and not truth_errors
    if args.tap:
        label = (args.label + " ") if args.label else ""
        for m, (mok, v) in sorted(model_ok.items()):
            print("%s - %s%s servers: %d/%d visits with exactly their true calls" % (
                "ok" if mok else "not ok", label, m, v["exact"], v["total"]))
        if pairs:
            right = sum(1 for _, want, got in pairs if ANALYZER_MODEL.get(want) == got)
            print("%s - %sthreading model recognized for %d/%d servers" % (
                "ok" if right == len(pairs) else "not ok", label, right, len(pairs)))
        print("%s - %scompleteness %.2f%% accuracy %.2f%% over %d requests" % (
            "ok" if ok else "not ok", label, pct(nfound, n), pct(nexact, nfound), n))
        print("%s - %spaths marked exact: %d/%d (%.2f%%), %d of them wrong" % (
            "ok" if marked_wrong == 0 else "not ok", label, len(marked), nfound,
            pct(len(marked), nfound), marked_wrong))
    return 0 if ok and marked_wrong == 0 else 1


def check_truth(args):
    """Checks the ground truth alone: well-formed, consistent, reproducible."""
    topo = Topology(args.topology)
    roots, errors = load_truth(args.truth)
    problems = []
    if errors:
        problems.append("%d client errors" % len(errors))
    if args.requests is not None and len(roots) != args.requests:
        problems.append("%d requests recorded, %d expected" % (len(roots), args.requests))
    ordinals = {}
    names = set(topo.model)
    for root in roots:
        for node, parent, depth in walk(root):
            for field in ("server", "client", "conn_index", "rt_ns", "calls"):
                if field not in node:
                    problems.append("a call without %s" % field)
            if node["server"] not in names:
                problems.append("unknown server %s" % node["server"])
            if parent and node["rt_ns"] > parent["rt_ns"]:
                problems.append("call %s took longer than its caller" % node["server"])
            ordinals.setdefault((node["client"], node["server"]), []).append(node["conn_index"])
    # Every connection's ordinals must be exactly 0..n-1: no call lost or counted twice.
    bad_conns = [c for c, o in ordinals.items() if sorted(o) != list(range(len(o)))]
    if bad_conns:
        problems.append("%d connections whose ordinals are not 0..n-1 (e.g. %s)" %
                        (len(bad_conns), bad_conns[0]))
    inner = sum(len(o) for o in ordinals.values()) - len(roots)
    print("# %d requests, %d inner calls, %d connections, %d distinct path shapes" % (
        len(roots), inner, len(ordinals), len({r["path"] for r in roots})))
    if args.same_seed:
        other, _ = load_truth(args.same_seed)
        mine = {(r["session"], r["seq"]): r["path"] for r in roots}
        common = [(k, p) for k, p in ((k, mine.get(k)) for k in
                  ((r["session"], r["seq"]) for r in other)) if p is not None]
        theirs = {(r["session"], r["seq"]): r["path"] for r in other}
        differ = sum(1 for k, p in common if theirs[k] != p)
        print("# same seed: %d requests in both runs, %d with a different path" % (
            len(common), differ))
        if not common or differ:
            problems.append("the same seed gave different paths")
    for p in sorted(set(problems)):
        print("# problem: " + p)
    return 1 if problems else 0


def fault(args):
    """After a fault (a server killed, a host gone): every request the client
    saw answered must be found and right; every request the fault cut (a
    client error, so not in the truth) must be marked incomplete or hold a
    one-way call, and hold no call that belongs to another request."""
    cmp, truth_errors = load_comparison(args)
    truth_roots = cmp.truth_roots
    rows = cmp.requests()
    tally, _ = cmp.calls()
    right = sum(1 for r in rows if r["exact"])
    missed = sum(1 for r in rows if not r["found"])
    true_root_keys = {truth_key(r) for r in truth_roots}
    cut = [r for k, r in cmp.found_roots.items()
           if k not in true_root_keys and k not in cmp.true_parent]
    # A server killed with the request read closes in order: the analyzer
    # then shows a one-way call (docs/json.md), which says no reply came.
    one_way = [r for r in cut if r.get("complete", True) and
               any(n.get("outcome") == "one-way" for n, _, _ in walk(r["root"]))]
    unmarked = [r for r in cut if r.get("complete", True) and r not in one_way]
    stolen = sum(1 for r in cut for node, _, _ in walk(r["root"])
                 if cmp.found_key(node) in cmp.true_parent)
    after = [r for r in rows if args.after_line is not None and r["truth"]["line"] > args.after_line]
    after_right = sum(1 for r in after if r["exact"])
    label = (args.label + " ") if args.label else ""
    lines = [
        "true requests (answered)  %d, %d found right, %d wrong, %d not found" %
        (len(rows), right, len(rows) - right - missed, missed),
        "inner calls               %d correct, %d orphaned, %d mis-linked, %d missing" %
        (tally["correct"], tally["orphaned"], tally["mis-linked"], tally["missing"]),
        "client errors (cut)       %d" % len(truth_errors),
        "found requests not in the truth  %d: %d incomplete, %d with a one-way call, "
        "%d neither" % (len(cut), len(cut) - len(one_way) - len(unmarked), len(one_way),
                        len(unmarked)),
    ]
    if args.after_line is not None:
        lines.append("answered after the fault  %d, %d found right" % (len(after), after_right))
    for line in lines:
        print(("# " if args.tap else "") + line)
    checks = [
        (len(rows) > 0 and right == len(rows),
         "every answered request found right (%d/%d)" % (right, len(rows))),
        (len(truth_errors) > 0 and len(cut) > 0,
         "the fault cut requests in flight (%d client errors, %d cut requests found)" %
         (len(truth_errors), len(cut))),
        (not unmarked and not stolen,
         "every cut request marked incomplete or one-way, holding no other request's "
         "call (%d unmarked, %d calls taken)" % (len(unmarked), stolen)),
    ]
    if args.after_line is not None:
        checks.append((len(after) > 0 and after_right == len(after),
                       "requests after the fault found right (%d/%d)" %
                       (after_right, len(after))))
    for good, what in checks:
        if args.tap:
            print("%s - %s%s" % ("ok" if good else "not ok", label, what))
        elif not good:
            print("failed: " + what)
    return 0 if all(good for good, _ in checks) else 1


def to_found(node, topo):
    return {
        "client": {"addr": node["client"]},
        "server": {"addr": topo.by_name[node["server"]]},
        "conn_index": node["conn_index"],
        "duration_ns": node["rt_ns"],
        "calls": [to_found(c, topo) for c in node["calls"]],
    }


def fake_found(args):
    topo = Topology(args.topology)
    roots, _ = load_truth(args.truth)
    reqs = [{"id": i, "complete": True, "root": to_found(r, topo)} for i, r in enumerate(roots)]
    nested = [r for r in reqs if r["root"]["calls"]]
    if args.break_ == "drop":
        reqs.pop()
    elif args.break_ == "orphan":
        call = nested[0]["root"]["calls"].pop(0)
        reqs.append({"id": len(reqs), "complete": True, "root": call})
    elif args.break_ == "swap":
        calls = next(r["root"]["calls"] for r in reqs if len(r["root"]["calls"]) >= 2)
        calls[0], calls[1] = calls[1], calls[0]
    elif args.break_ == "relink":
        nested[1]["root"]["calls"].append(nested[0]["root"]["calls"].pop(0))
    json.dump({"version": 1, "hosts": [], "processes": [], "requests": reqs}, sys.stdout)
    return 0


def exact_story(node, depth=0):
    """One line per call of a found tree: who, where, when, and its link's evidence."""
    c, s, link = node.get("client", {}), node.get("server", {}), node.get("link", {})
    lines = ["%s%s@%s %s/%s %s->%s [%s +%s] %s/%s" % (
        "  " * depth, s.get("process", "?"), s.get("host", "?"), s.get("pid", "?"),
        s.get("tid", "?"), c.get("addr", "?"), s.get("addr", "?"), node.get("start_ns", "?"),
        node.get("duration_ns", "?"), link.get("basis", "?"), link.get("candidates", "?"))]
    for k in node.get("calls", []):
        lines += exact_story(k, depth + 1)
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--truth", required=True)
    c.add_argument("--found", required=True)
    c.add_argument("--topology", required=True)
    c.add_argument("--tap", action="store_true", help="print TAP lines, the table as comments")
    c.add_argument("--label", default="")
    c.add_argument("--failures", help="write every wrong path, truth and found, as JSON lines")
    t = sub.add_parser("check-truth")
    t.add_argument("--truth", required=True)
    t.add_argument("--topology", required=True)
    t.add_argument("--requests", type=int)
    t.add_argument("--same-seed", help="another truth file made with the same seed")
    ft = sub.add_parser("fault")
    ft.add_argument("--truth", required=True)
    ft.add_argument("--found", required=True)
    ft.add_argument("--topology", required=True)
    ft.add_argument("--tap", action="store_true", help="print TAP lines, the figures as comments")
    ft.add_argument("--label", default="")
    ft.add_argument("--after-line", type=int, help="the truth had N lines at the fault: "
                    "requests answered after it are counted apart, and there must be some")
    f = sub.add_parser("fake-found")
    f.add_argument("--truth", required=True)
    f.add_argument("--topology", required=True)
    f.add_argument("--break", dest="break_", choices=["orphan", "swap", "drop", "relink"])
    args = ap.parse_args()
    commands = {"compare": compare, "check-truth": check_truth, "fault": fault,
                "fake-found": fake_found}
    try:
        return commands[args.cmd](args)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print("vpcompare: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
