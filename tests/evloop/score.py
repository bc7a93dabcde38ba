# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Scores `vpath-analyze paths --json` against the truth of an event-loop
workload run (run.sh): DIR holds truth.jsonl (client.py), found.json and
evloop.json ({"gateway": kind, "gateway_addr", "backend_addr"}, optional
"workload" to name it in the labels, optional "calls_by": "stream" when the
truth names back-end calls by HTTP/2 stream id; --meta names another such
file, as tests/handoff and tests/h2 do).

A true request is found when a path enters the gateway on its (client
ip:port, ordinal on that connection); its path is right when the calls under
the gateway are exactly its true calls, each identified by the back end's
view (client port of the back-end connection, ordinal there = conn_index),
and the back-end calls make no calls of their own.  With "calls_by": "stream"
(tests/h2) the truth names a call (client port, stream id) and the ordinal
compared with conn_index is the rank of its stream id among the truth's
stream ids on that connection: the exchange ordinal when each stream is
found as one exchange, in the order the streams were opened.  With "hop_addr"
(tests/h2's nginx variants: the back end is a proxy that makes each call
again to the server at hop_addr) a true call is [port, stream id, hop port,
hop ordinal], the proxy's call for it on a connection of its own, and a
path is right when each back-end call holds exactly that one call, which
makes none.  Figures: completeness,
overall accuracy, share of requests marked exact (requests[].exact),
accuracy of those, and per link (gateway -> back-end call): right, wrong,
orphaned (found as a root), missing, and how many links marked exact
(calls[].link.exact) are wrong.  A field the analyzer does not write yet is
reported as unknown.

  score.py compare --dir DIR [--found FILE] [--label TEXT] [--meta FILE] [--gate-roots]
                   [--gate-calls] [--min-accuracy PCT]
      TAP lines and figures; exit 0 when the gates pass (completeness 100%,
      every path and link marked exact right; with --gate-roots also no true
      call found as a root marked exact; with --gate-calls every true call
      found as a call of its own, none missing, none found that is not one;
      with --min-accuracy at least PCT%
      of the found paths right), 1 when one fails, 2 when the
      input cannot be scored.  DIR/failures.jsonl: every wrong path.
  score.py fake-found --dir DIR --out FILE
      what a perfect analyzer would write, every link marked exact
  score.py break --dir DIR [--found FILE] --what move|drop|lose|orphan|disagree --out FILE
      found.json damaged in one place, the damage claimed exact: a call moved
      to another request, a call dropped, a request lost, or a call made a
      root of its own (marked exact as a root); or, disagree, a process
      reporting one propagated id that disagreed with an exact rule
"""
import argparse
import collections
import json
import os
import random
import sys


class Unscorable(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Unscorable("%s: %s" % (path, e))


def load_truth(path, by_stream=False, hops=False):
    truth = []
    width = 4 if hops else 2
    try:
        with open(path) as f:
            for i, line in enumerate(f, 1):
                rec = json.loads(line)
                calls = [tuple(c) for c in rec["calls"]]
                if any(len(c) != width for c in calls):
                    raise ValueError("line %d: a call is not [port, ordinal%s]"
                                     % (i, ", hop port, hop ordinal" if hops else ""))
                truth.append({"id": rec["id"], "key": (rec["client"], rec["conn_index"]),
                              "calls": calls})
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Unscorable("%s: %s" % (path, e))
    if not truth:
        raise Unscorable("%s: no request" % path)
    if by_stream:
        streams_to_ordinals(truth)
    return truth


def streams_to_ordinals(truth):
    """(port, stream id) -> (port, rank of the stream id on that port's
    connection).  Every stream of the connection is a call in the truth (the
    gateways open no other), and a client opens its streams in increasing
    id order (RFC 9113 5.1.1), so the rank is the stream's ordinal among
    those opened; the ids themselves start at 1 (Node.js) or 3 (x/net with
    AllowHTTP) and step by 2."""
    ids = collections.defaultdict(set)
    for t in truth:
        for c in t["calls"]:
            ids[c[0]].add(c[1])
    rank = {(port, sid): (port, k)
            for port, sids in ids.items() for k, sid in enumerate(sorted(sids))}
    for t in truth:
        t["streams"] = t["calls"]
        # a hop (the proxy's call) keeps the back end's ordinal
        t["calls"] = [rank[c[:2]] + tuple(c[2:]) for c in t["calls"]]


def load_run(args):
    """The run's description and its truth."""
    meta = load_json(os.path.join(args.dir, args.meta))
    by_stream = meta.get("calls_by") == "stream"
    return meta, load_truth(os.path.join(args.dir, "truth.jsonl"), by_stream,
                            "hop_addr" in meta)


def what_compared(meta):
    if meta.get("calls_by") == "stream":
        return ("a back-end call is (client port, rank of its HTTP/2 stream id among the "
                "truth's streams on that connection) against (client.addr port, conn_index): "
                "right only if each stream is found as one exchange, in stream order")
    return ("a back-end call is (client port, the back end's ordinal of the call on that "
            "connection) against (client.addr port, conn_index)")


def port_of(addr):
    return int(addr.rsplit(":", 1)[1])


def addr_of(end):
    return (end or {}).get("addr")


class Found:
    """The gateway's paths by (client addr, conn_index) and where every
    back-end call sits (and with HOP every call of the back end to HOP)."""

    def __init__(self, doc, gateway, backend, hop=None):
        self.doc = doc
        self.gateway, self.backend, self.hop = gateway, backend, hop
        self.hop_parent_of = {}  # hop call id -> back-end call id, or None for a root
        self.hop_link_of = {}
        self.by_key = {}      # (client addr, conn_index) -> request object
        self.duplicates = 0
        self.parent_of = {}   # call id -> gateway key, or None for a root
        self.link_of = {}     # call id -> the call's link object (or None)
        self.foreign = 0      # calls under the gateway to anything but the back end
        self.deep = 0         # calls made by back-end calls
        try:
            for req in doc["requests"]:
                self._add(req)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise Unscorable("found.json has not the expected shape: %r" % e)

    def call_id(self, call):
        return (port_of(call["client"]["addr"]), call["conn_index"])

    def _below(self, call, cid):
        """What back-end call CID made: nothing, or with a hop its calls to it."""
        for sub in call.get("calls", []):
            if self.hop and addr_of(sub.get("server")) == self.hop:
                hid = self.call_id(sub)
                self.hop_parent_of[hid] = cid
                self.hop_link_of[hid] = sub.get("link")
                self.deep += len(sub.get("calls", []))
            else:
                self.deep += 1

    def _add(self, req):
        root = req["root"]
        server = addr_of(root.get("server"))
        if self.hop and server == self.hop:
            self.hop_parent_of[self.call_id(root)] = None
            self.hop_link_of[self.call_id(root)] = root.get("link")
            self.deep += len(root.get("calls", []))
            return
        if server == self.backend:
            self.parent_of[self.call_id(root)] = None
            self.link_of[self.call_id(root)] = root.get("link")
            self._below(root, self.call_id(root))
            return
        if server != self.gateway:
            return
        key = (addr_of(root.get("client")), root["conn_index"])
        if key in self.by_key:
            self.duplicates += 1
            return
        self.by_key[key] = req
        for call in root.get("calls", []):
            if addr_of(call.get("server")) != self.backend:
                self.foreign += 1
                continue
            cid = self.call_id(call)
            self.parent_of[cid] = key
            self.link_of[cid] = call.get("link")
            self._below(call, cid)

    def calls_of(self, key):
        """Back-end call ids under the gateway path KEY, and whether the path
        holds anything else (calls to other servers, calls below calls)."""
        root = self.by_key[key]["root"]
        ids, odd = [], False
        for call in root.get("calls", []):
            subs = call.get("calls", [])
            if addr_of(call.get("server")) != self.backend:
                odd = True
            elif not self.hop:
                if subs:
                    odd = True
                else:
                    ids.append(self.call_id(call))
            elif (len(subs) != 1 or addr_of(subs[0].get("server")) != self.hop or
                  subs[0].get("calls")):
                # a back-end call makes its one call to the hop, nothing else
                odd = True
                ids.append(self.call_id(call) + (-1, -1))
            else:
                ids.append(self.call_id(call) + self.call_id(subs[0]))
        return ids, odd


def placement(parent_of, cid, true_parent):
    """Where true call CID was found: missing, orphaned (a root), right, elsewhere."""
    if cid not in parent_of:
        return "missing"
    if parent_of[cid] is None:
        return "orphaned"
    return "right" if parent_of[cid] == true_parent else "elsewhere"


def hop_links(found, hop_owner, links):
    """The proxy's calls (found.hop): counted into LINKS as "hop ..."."""
    for hid, parent in hop_owner.items():
        where = placement(found.hop_parent_of, hid, parent)
        links["hop " + ("under another call" if where == "elsewhere" else where)] += 1
    for hid, parent in found.hop_parent_of.items():
        right = hid not in hop_owner if parent is None else hop_owner.get(hid) == parent
        link = found.hop_link_of[hid]
        if link and link.get("exact"):
            which = "hop marked exact" if parent is not None else "hop roots marked exact"
            links[which] += 1
            links[which + ", wrong"] += not right
    links["hop not in the truth"] = sum(1 for h in found.hop_parent_of if h not in hop_owner)


def pct(n, d):
    return "%.1f%%" % (100.0 * n / d) if d else "n/a"


def compare(args):
    meta, truth = load_run(args)
    doc = load_json(args.found or os.path.join(args.dir, "found.json"))
    found = Found(doc, meta["gateway_addr"], meta["backend_addr"], meta.get("hop_addr"))
    label = args.label or "%s %s:" % (meta.get("workload", "evloop"), meta["gateway"])
    owner = {}      # back-end call -> its true request
    hop_owner = {}  # the proxy's call -> the back-end call it was made for
    for t in truth:
        for c in t["calls"]:
            for mine, key, parent in ((owner, c[:2], t), (hop_owner, c[2:], c[:2])):
                if not key:
                    continue
                if key in mine:
                    raise Unscorable("truth: call %s claimed twice (request %d)"
                                     % (key, t["id"]))
                mine[key] = parent

    n_found = n_right = 0
    exact_known = exact_marked = exact_right = 0
    # wrong paths marked exact with more or fewer calls than the truth:
    # wrong however the calls are named
    exact_miscounted = 0
    failures = []
    for t in truth:
        req = found.by_key.get(t["key"])
        if req is None:
            failures.append({"id": t["id"], "client": t["key"][0], "conn_index": t["key"][1],
                             "why": "not found", "true": t["calls"]})
            continue
        n_found += 1
        ids, odd = found.calls_of(t["key"])
        right = not odd and sorted(ids) == sorted(t["calls"])
        n_right += right
        if "exact" in req:
            exact_known += 1
            if req["exact"]:
                exact_marked += 1
                exact_right += right
                exact_miscounted += len(ids) != len(t["calls"]) or odd
        if not right:
            extra = [list(c) + [owner[c[:2]]["id"] if c[:2] in owner else None]
                     for c in ids if c not in t["calls"]]
            failures.append({"id": t["id"], "client": t["key"][0], "conn_index": t["key"][1],
                             "why": "wrong calls", "exact": req.get("exact"),
                             "true": t["calls"], "true streams": t.get("streams"),
                             "found": ids,
                             "missing": [c for c in t["calls"] if c not in ids],
                             "extra (port, ordinal, true request)": extra,
                             "start_ns": req["root"].get("start_ns")})

    links = collections.Counter()
    by_basis = collections.defaultdict(collections.Counter)
    for cid, t in owner.items():
        where = placement(found.parent_of, cid, t["key"])
        links["under another request" if where == "elsewhere" else where] += 1
    # A back-end call found as a root has a link too (basis "root"): marked
    # exact, it claims to have no parent, which is wrong for a true call
    # (a gate with --gate-roots, a figure without).
    for cid, parent in found.parent_of.items():
        if parent is None:
            right = cid not in owner
        else:
            right = cid in owner and owner[cid]["key"] == parent
        link = found.link_of[cid]
        if link is None:
            links["link unknown"] += 1
            continue
        basis = by_basis[link.get("basis", "?")]
        basis["links"] += 1
        basis["right"] += right
        if link.get("exact"):
            which = "marked exact" if parent is not None else "roots marked exact"
            links[which] += 1
            links[which + ", wrong"] += not right
    links["not in the truth"] = sum(1 for cid in found.parent_of if cid not in owner)
    hop_links(found, hop_owner, links)

    with open(os.path.join(args.dir, "failures.jsonl") if not args.found else
              args.found + ".failures.jsonl", "w") as out:
        for f in failures:
            out.write(json.dumps(f) + "\n")

    n = len(truth)
    gates = []
    gates.append((n_found == n and found.duplicates == 0,
                  "completeness %s (%d/%d requests found%s)" % (
                      pct(n_found, n), n_found, n,
                      ", %d found twice" % found.duplicates if found.duplicates else "")))
    if exact_known:
        what = "%d/%d paths marked exact are right" % (exact_right, exact_marked)
    else:
        what = "paths marked exact are right: unknown (no requests[].exact in found.json)"
    gates.append((exact_right == exact_marked, what))
    if links["link unknown"] and not links["marked exact"]:
        what = "links marked exact: unknown (no calls[].link in found.json)"
    else:
        what = "%d of %d links marked exact are wrong" % (links["marked exact, wrong"],
                                                          links["marked exact"])
    if found.hop:
        what += "; of the proxy's calls %d of %d" % (links["hop marked exact, wrong"],
                                                       links["hop marked exact"])
    gates.append((links["marked exact, wrong"] + links["hop marked exact, wrong"] == 0, what))
    what = "%d of %d back-end calls found as roots marked exact have a parent" % (
        links["roots marked exact, wrong"], links["roots marked exact"])
    if found.hop:
        what += "; of the proxy's calls %d of %d" % (links["hop roots marked exact, wrong"],
                                                       links["hop roots marked exact"])
    links["roots marked exact, wrong"] += links["hop roots marked exact, wrong"]
    if args.gate_roots:
        gates.append((links["roots marked exact, wrong"] == 0, what))
    if args.gate_calls:
        gates.append((links["missing"] == 0 and links["not in the truth"] == 0,
                       "every call found as its own (%d of %d missing, %d found not in the truth)"
                       % (links["missing"], len(owner), links["not in the truth"])))
        if found.hop:
            gates.append((links["hop missing"] == 0 and links["hop not in the truth"] == 0,
                           "every call of the proxy found as its own (%d of %d missing, "
                           "%d found not in the truth)" % (links["hop missing"], len(hop_owner),
                                                           links["hop not in the truth"])))
    # Propagated ids (processes[] has these only where calls carried one): an
    # exact rule and an id never disagree on these workloads.
    ids = collections.Counter()
    for p in doc.get("processes", []) if isinstance(doc, dict) else []:
        for k in ("calls_with_id", "calls_by_id", "id_disagreements"):
            ids[k] += p.get(k, 0)
    if ids["calls_with_id"]:
        gates.append((ids["id_disagreements"] == 0,
                      "%d calls carried a propagated id, %d linked by it, %d disagreements" % (
                          ids["calls_with_id"], ids["calls_by_id"], ids["id_disagreements"])))
    if args.min_accuracy is not None:
        gates.append((n_found and 100.0 * n_right / n_found >= args.min_accuracy,
                      "overall accuracy %s >= %g%% (%d/%d paths right)" % (
                          pct(n_right, n_found), args.min_accuracy, n_right, n_found)))
    for ok, text in gates:
        print("%s - %s %s" % ("ok" if ok else "not ok", label, text))

    n_calls = len(owner)
    print("# %s compared: %s" % (label, what_compared(meta)))
    print("# %s overall accuracy %s (%d/%d paths right; goal >= 95%%)"
          % (label, pct(n_right, n_found), n_right, n_found))
    print("# %s marked exact %s of the found requests (%d/%d)%s"
          % (label, pct(exact_marked, n_found) if exact_known else "unknown", exact_marked,
             n_found, "" if exact_known else " [no requests[].exact]"))
    print("# %s exact-marked accuracy %s (%d/%d); wrong with a wrong number of calls %d"
          % (label, pct(exact_right, exact_marked), exact_right, exact_marked,
             exact_miscounted))
    print("# %s links (gateway -> back end): %d true; right %d (%s), under another request %d, "
          "orphaned %d, missing %d; found calls not in the truth %d; calls to other servers %d, "
          "calls below back-end calls %d"
          % (label, n_calls, links["right"], pct(links["right"], n_calls),
             links["under another request"], links["orphaned"], links["missing"],
             links["not in the truth"], found.foreign, found.deep))
    if not args.gate_roots:
        print("# %s %s" % (label, what))
    print("# %s links marked exact %d, of which wrong %d%s"
          % (label, links["marked exact"], links["marked exact, wrong"],
             "; %d links without a link field" % links["link unknown"]
             if links["link unknown"] else ""))
    if found.hop:
        print("# %s links (proxy -> %s): %d true; right %d (%s), under another call %d, "
              "orphaned %d, missing %d; found calls not in the truth %d; marked exact %d, "
              "of which wrong %d"
              % (label, found.hop, len(hop_owner), links["hop right"],
                 pct(links["hop right"], len(hop_owner)), links["hop under another call"],
                 links["hop orphaned"], links["hop missing"], links["hop not in the truth"],
                 links["hop marked exact"], links["hop marked exact, wrong"]))
    for basis, c in sorted(by_basis.items()):
        print("# %s   basis %-13s %5d links, %5d right (%s)"
              % (label, basis, c["links"], c["right"], pct(c["right"], c["links"])))
    return 0 if all(ok for ok, _ in gates) else 1


# --- a perfect analysis, and broken ones ------------------------------------

def call_object(gateway_ip, backend, port, ordinal, hop=None, hop_port=None, hop_ordinal=None):
    """A back-end call; with HOP holding the proxy's call for it."""
    calls = []
    if hop:
        calls.append(call_object(backend.rsplit(":", 1)[0], hop, hop_port, hop_ordinal))
    return {"client": {"addr": "%s:%d" % (gateway_ip, port)}, "server": {"addr": backend},
            "conn_index": ordinal, "calls": calls,
            "link": {"basis": "thread", "exact": True, "candidates": 1}}


def fake_found(args):
    meta, truth = load_run(args)
    gw_ip = meta["gateway_addr"].rsplit(":", 1)[0]
    requests = []
    for t in truth:
        root = {"client": {"addr": t["key"][0]}, "server": {"addr": meta["gateway_addr"]},
                "conn_index": t["key"][1],
                "calls": [call_object(gw_ip, meta["backend_addr"], c[0], c[1],
                                      meta.get("hop_addr"), *c[2:]) for c in t["calls"]],
                "link": {"basis": "root", "exact": True, "candidates": 0}}
        requests.append({"id": t["id"], "exact": True, "complete": True, "root": root})
    return {"version": 2, "requests": requests}


def claim_exact(req):
    req["exact"] = True
    for call in req["root"]["calls"]:
        call["link"] = dict(call.get("link") or {}, exact=True)


def break_found(args):
    meta, truth = load_run(args)
    doc = load_json(args.found or os.path.join(args.dir, "found.json"))
    found = Found(doc, meta["gateway_addr"], meta["backend_addr"], meta.get("hop_addr"))
    rng = random.Random(1)
    true_calls = {t["key"]: set(c[:2] for c in t["calls"]) for t in truth}
    keys = [t["key"] for t in truth if t["key"] in found.by_key]
    rng.shuffle(keys)
    if args.what == "disagree":
        # every path right, but the analyzer says an id and an exact rule disagreed once
        doc.setdefault("processes", []).append(
            {"calls_with_id": 1, "calls_by_id": 0, "id_disagreements": 1})
        return doc
    if args.what == "lose":
        if not keys:
            raise Unscorable("no found request to lose")
        doc["requests"].remove(found.by_key[keys[0]])
        return doc
    for key in keys:
        req = found.by_key[key]
        calls = req["root"]["calls"]
        mine = [c for c in calls if addr_of(c.get("server")) == found.backend and
                found.call_id(c) in true_calls[key]]
        if not mine:
            continue
        call = mine[0]
        calls.remove(call)
        if args.what == "orphan":
            # a root of its own that claims, exactly, to have no parent
            # (its request owns up to being unsure, so only the link is wrong)
            call["link"] = {"basis": "root", "exact": True, "candidates": 0}
            req["exact"] = False
            doc["requests"].append({"id": len(doc["requests"]), "exact": True, "complete": True,
                                    "root": call})
        elif args.what == "move":
            # to a request it does not belong to, which then claims to be exact
            others = [k for k in keys if k != key]
            if not others:
                raise Unscorable("one found request only: nowhere to move a call")
            to = others[0]
            found.by_key[to]["root"]["calls"].append(call)
            claim_exact(found.by_key[to])
        else:
            claim_exact(req)
        return doc
    raise Unscorable("no found request holds one of its true calls: nothing to %s" % args.what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("compare", "fake-found", "break"))
    ap.add_argument("--dir", required=True)
    ap.add_argument("--found")
    ap.add_argument("--label")
    ap.add_argument("--gate-roots", action="store_true",
                    help="a true call found as a root marked exact fails the run")
    ap.add_argument("--gate-calls", action="store_true",
                    help="a true call not found as a call of its own fails the run")
    ap.add_argument("--min-accuracy", type=float, metavar="PCT",
                    help="fewer paths right than PCT%% of those found fails the run")
    ap.add_argument("--meta", default="evloop.json",
                    help="the run's description in DIR (tests/handoff: handoff.json)")
    ap.add_argument("--what", choices=("move", "drop", "lose", "orphan", "disagree"))
    ap.add_argument("--out")
    args = ap.parse_args()
    try:
        if args.mode == "compare":
            return compare(args)
        if not args.out or (args.mode == "break" and not args.what):
            raise Unscorable("%s needs --out%s" % (args.mode, " and --what"
                                                   if args.mode == "break" else ""))
        doc = fake_found(args) if args.mode == "fake-found" else break_found(args)
        with open(args.out, "w") as out:
            json.dump(doc, out)
        return 0
    except Unscorable as e:
        print("score.py: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
