#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Ground truth of the PHP stack (tests/phpstack), and its comparison with
the paths vpath-analyze found.

  check.py compare --dir DIR --topology TOPO.json [--label TEXT] [--min-right PCT]
      DIR holds client.jsonl (the client's record), nginx/access.log,
      mariadb/general.log and found.json (vpath-analyze paths --json).
      Prints TAP lines with the figures; exit 1 when a comparison fails, 2
      when the checker itself fails (unreadable input).
  check.py fake-found --dir DIR
      Writes DIR/found.json as a perfect analyzer would (schema 2: exact,
      link, outcome, setup_ns): compare must pass on it.
  check.py break --dir DIR --what KIND
      Breaks one thing in DIR (a copy of a run's results), to show that
      compare fails when it should: found-drop (a MariaDB query missing from
      a path), found-move (a query under another request), found-swap (two
      queries in the wrong order), found-handshake (a TLS handshake found as a
      request at nginx), found-quit (COM_QUIT not one-way), found-exact (a
      wrong path marked exact), mariadb-log (a query missing from MariaDB's
      general log), nginx-log (a request id nginx did not log).

The truth does not come from vpath.  The client knows each request's id (it
sends X-Rid), how many queries it asked for, its TLS connection (local
ip:port) and the request's ordinal on it.  The app (app.php) tells in reply
headers which FastCGI connection the request came on (nginx's end, found in
/proc) and its ordinal there, and which MariaDB connection it opened (PHP's
end, and MariaDB's connection id).  Then the servers' own logs confirm it:
nginx's access log (client address, $connection_requests, the client's
request id, TLSv1.3) and MariaDB's general log (per connection id: a Connect
"using SSL/TLS", every query with the request id in a comment, in order,
then Quit).

What a right path is (issue 17): the request found entering at nginx with
its own connection and ordinal; under it exactly one call, to PHP-FPM, on
the true FastCGI connection with the true ordinal; under that exactly the
exchanges of the request's own MariaDB connection, numbered 0, 1, ... in
order, and nothing under those:
  - the connection's setup comes first: MariaDB's greeting, the client's
    SSLRequest, the TLS handshake (STARTTLS-like: inside the MySQL protocol,
    not at the connection's first byte) and the authentication round trip
    (HandshakeResponse -> OK, inside TLS).  The analyzer sees no payload, so
    either it shows the authentication round trip as a call (then the
    connection's calls are auth, queries, quit) or it takes it into the
    setup too (queries, quit).  Both are right; nothing else is (a TLS
    handshake flight is never a call).  With schema 2, the connection's first
    call must have setup_ns > 0.
  - then every query, in order (one request/reply exchange each);
  - then COM_QUIT: a message followed by an orderly close without a reply,
    a call whose outcome (schema 2) is "one-way"; every other call of the
    path must be "complete".
Figures per run: requests sent, found (entering at nginx), extra roots at
nginx (a TLS handshake, session ticket or close_notify taken as a request),
other roots (not at nginx) that are no true call, paths right, the share
marked exact and how many of those are right, the share complete.  When
paths are wrong, a diagnosis line looks each request's FastCGI call up by its
own identity, wherever it hangs, to tell nginx's part of the failures (a
handshake counted as a request shifts every ordinal after it) from the rest.
"""
import argparse
import copy
import importlib.util
import json
import os
import re
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import vpcompare  # noqa: E402


def _realstack_check():
    # Its Problems (TAP line with the first problems); a module also named check.py.
    spec = importlib.util.spec_from_file_location(
        "realstack_check", os.path.join(HERE, "..", "realstack", "check.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Problems = _realstack_check().Problems

# mysqlnd with mysql_native_password (MariaDB's default): HandshakeResponse
# (inside TLS) -> OK.  The greeting and the SSLRequest before the TLS
# handshake have no reply of their own in between (SSLRequest is followed at
# once by the ClientHello).
AUTH_ROUND_TRIPS = 1
GENERAL_LINE = re.compile(r"^(?:\d{6}\s+\d{1,2}:\d\d:\d\d)?\t+\s*(\d+) ([^\t]+)\t(.*)$")
QUERY_RID = re.compile(r"/\* rid=(\S+) q=(\d+) \*/")


def pct(n, d):
    return 100.0 * n / d if d else 100.0


def load_client(path, problems):
    reqs = []
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "error" in r or r.get("status") != 200:
                problems.add("request %s: %s" % (r["rid"], r.get("error") or r.get("status")))
                continue
            if r["tls"] != "TLSv1.3":
                problems.add("request %s: over %s" % (r["rid"], r["tls"]))
            if r.get("rid") != r.get("x-rid", r.get("rid")):
                problems.add("request %s: the app echoed %s" % (r["rid"], r.get("x-rid")))
            if int(r["queries"]) != r["asked"]:
                problems.add("request %s: asked for %d queries, the app made %s" % (
                    r["rid"], r["asked"], r["queries"]))
            fcgi_addr, fcgi_ordinal, r["fcgi_inode"] = r["fcgi"].split(" ")
            db_addr, db_id = r["db"].split(" ")
            r["fcgi"] = (fcgi_addr, int(fcgi_ordinal))
            r["db"] = (db_addr, int(db_id))
            reqs.append(r)
    return reqs


def check_identities(reqs, problems):
    """Every request's ordinal on its TLS and FastCGI connections, counted
    0..n-1 on each, and a MariaDB connection of its own.  Connections are told
    apart by the client's serial, the FastCGI socket's inode and MariaDB's
    connection id: a port can serve two connections one after the other."""
    ordinals = defaultdict(list)
    addrs = defaultdict(set)
    for r in reqs:
        for conn, addr, ordinal in ((("tls", r["conn"]), r["client"], r["conn_index"]),
                                    (("fcgi", r["fcgi_inode"]), r["fcgi"][0], r["fcgi"][1]),
                                    (("db", r["db"][1]), r["db"][0], 0)):
            ordinals[conn].append(ordinal)
            addrs[(conn[0], addr)].add(conn)
    for conn, o in ordinals.items():
        if sorted(o) != list(range(len(o))):
            problems.add("%s connection %s: ordinals %s" % (conn[0], conn[1], sorted(o)[:10]))
    reused = Counter(kind for (kind, _), conns in addrs.items() if len(conns) > 1)
    if reused:
        print("# ports that served two connections one after the other: %s" % ", ".join(
            "%d %s" % (n, kind) for kind, n in sorted(reused.items())))
    return sum(1 for conn in ordinals if conn[0] == "fcgi")


def check_nginx(reqs, path, problems):
    # A client port can serve two connections one after the other (the
    # ports the client reports as reused), so one (address, ordinal) can
    # hold two requests: what nginx logged there is compared as a multiset.
    seen, nlogged = defaultdict(Counter), 0
    with open(path) as f:
        for line in f:
            addr, nth, rid, status, proto = line.split()[:5]
            seen[(addr, int(nth) - 1)][(rid, status, proto)] += 1
            nlogged += 1
    for r in reqs:
        got = seen[(r["client"], r["conn_index"])]
        want = (r["rid"], "200", "TLSv1.3")
        if got[want]:
            got[want] -= 1
        else:
            problems.add("%s #%d (%s): nginx logged %s" % (r["client"], r["conn_index"],
                                                          r["rid"], sorted(+got) or None))
    if nlogged != len(reqs):
        problems.add("nginx logged %d requests, the client made %d" % (nlogged, len(reqs)))


def general_log(path):
    """MariaDB connection id -> [(command, argument)] in order."""
    entries = defaultdict(list)
    with open(path) as f:
        for line in f:
            m = GENERAL_LINE.match(line.rstrip("\n"))
            if m:
                entries[int(m.group(1))].append((m.group(2), m.group(3)))
    return entries


def check_mariadb(reqs, path, php_ip, problems):
    """Each request's MariaDB connection, as MariaDB logged it: connected from
    the app's host over TLS, its queries in order with its request id, Quit."""
    entries = general_log(path)
    ours = {cid for cid, e in entries.items()
            if e and e[0][0] == "Connect" and ("@%s " % php_ip) in e[0][1]}
    claimed = set()
    for r in reqs:
        cid = r["db"][1]
        claimed.add(cid)
        got = entries.get(cid, [])
        want = [("Connect", "using SSL/TLS")] + \
            [("Query", "rid=%s q=%d " % (r["rid"], i)) for i in range(r["asked"])] + [("Quit", "")]
        if len(got) != len(want) or any(g[0] != w[0] or w[1] not in g[1]
                                        for g, w in zip(got, want)):
            problems.add("request %s: MariaDB connection %d logged %s" % (
                r["rid"], cid, [g[0] + (" " + g[1][:40] if g[1] else "") for g in got]))
    if claimed != ours:
        problems.add("MariaDB logged %d connections from the app, the app made %d" % (
            len(ours), len(claimed)))
    return len(ours)


def truth_tree(r):
    """The request's path; DB calls as [(kind, ordinal among queries)]."""
    return {"client": r["client"], "conn_index": r["conn_index"], "rid": r["rid"],
            "start_ns": r["start_ns"],
            "fcgi": {"client": r["fcgi"][0], "conn_index": r["fcgi"][1]},
            "db": {"client": r["db"][0], "queries": r["asked"]}}


def call_fields(node):
    """The schema-2 fields of a call, None where absent."""
    link = node.get("link")
    return node.get("outcome"), node.get("setup_ns"), link


def why_wrong(t, found, topo):
    """Why a found path is not the true one (a short text), or None."""
    root = found["root"]
    name = topo.name
    calls = root.get("calls", [])
    if len(calls) != 1:
        return "%d calls under the request, not 1: %s" % (
            len(calls), [name(c["server"]["addr"]) for c in calls])
    fcgi = calls[0]
    if (fcgi["client"]["addr"], name(fcgi["server"]["addr"]), fcgi["conn_index"]) != \
            (t["fcgi"]["client"], "php", t["fcgi"]["conn_index"]):
        return "FastCGI call %s #%s, true %s #%d" % (fcgi["client"]["addr"], fcgi["conn_index"],
                                                     t["fcgi"]["client"], t["fcgi"]["conn_index"])
    outcome = call_fields(root)[0]
    if outcome is not None and outcome != "complete":
        return "the request is %s" % outcome
    return why_fcgi_wrong(t, fcgi, topo)


def why_fcgi_wrong(t, fcgi, topo):
    """Why what hangs under the request's FastCGI call is not the truth, or None."""
    name = topo.name
    db = fcgi.get("calls", [])
    foreign = [c for c in db if c["client"]["addr"] != t["db"]["client"]
               or name(c["server"]["addr"]) != "mariadb"]
    if foreign:
        return "%d calls from another connection under the FastCGI call (%s -> %s #%s)" % (
            len(foreign), foreign[0]["client"]["addr"], name(foreign[0]["server"]["addr"]),
            foreign[0]["conn_index"])
    setup = len(db) - t["db"]["queries"] - 1
    if setup not in (0, AUTH_ROUND_TRIPS):
        return "%d MariaDB calls for %d queries (+ quit, + %d auth)" % (
            len(db), t["db"]["queries"], AUTH_ROUND_TRIPS)
    if [c["conn_index"] for c in db] != list(range(len(db))):
        return "MariaDB calls numbered %s" % [c["conn_index"] for c in db]
    if any(c.get("calls") for c in db):
        return "calls under a MariaDB call"
    for c in [fcgi] + db[:-1]:
        outcome = call_fields(c)[0]
        if outcome is not None and outcome != "complete":
            return "%s call #%s is %s" % (name(c["server"]["addr"]), c["conn_index"], outcome)
    outcome = call_fields(db[-1])[0]
    if outcome is not None and outcome != "one-way":
        return "COM_QUIT is %s, not one-way" % outcome
    setup_ns = call_fields(db[0])[1]
    if setup_ns is not None and not setup_ns > 0:
        return "no setup time before the first MariaDB call (TLS handshake)"
    return None


def diagnose_below_nginx(truths, found, topo):
    """Tells the nginx part of the failures from the rest: each request's
    FastCGI call looked up by its own identity, wherever it hangs."""
    fcgi_calls = defaultdict(list)
    for q in found.get("requests", []):
        for n, _, _ in vpcompare.walk(q["root"]):
            if topo.name(n["server"]["addr"]) == "php":
                fcgi_calls[(n["client"]["addr"], n["conn_index"])].append(n)
    right, reasons = 0, Counter()
    for t in truths:
        calls = fcgi_calls.get((t["fcgi"]["client"], t["fcgi"]["conn_index"]), [])
        whys = [why_fcgi_wrong(t, c, topo) for c in calls] or ["FastCGI call not found"]
        if None in whys:
            right += 1
        else:
            reasons[re.sub(r"[\d.:]+", "N", whys[0])] += 1
    print("# diagnosis: FastCGI calls found by their own identity, wherever they hang, with "
          "exactly their true MariaDB calls under them: %d/%d" % (right, len(truths)))
    for why, count in reasons.most_common(4):
        print("#   wrong under the FastCGI call: %d x %s" % (count, why))


def fields_known(found):
    """Which schema-2 fields the analyzer's JSON has."""
    reqs = found.get("requests", [])
    known = {"exact": any("exact" in q for q in reqs)}
    for field in ("outcome", "setup_ns", "link"):
        known[field] = any(field in n for q in reqs for n, _, _ in vpcompare.walk(q["root"]))
    return known


def compare(args):
    d = args.dir
    label = args.label + " " if args.label else ""
    topo = vpcompare.Topology(args.topology)
    php_ip = topo.by_name["php"].rsplit(":", 1)[0]
    ok = True
    p = Problems()
    reqs = load_client(os.path.join(d, "client.jsonl"), p)
    nfcgi = check_identities(reqs, p)
    nq = sum(r["asked"] for r in reqs)
    print("# %d requests sent on %d TLS connections to nginx, %d queries; %d FastCGI "
          "connections; %d MariaDB connections (TLS)" % (
              len(reqs), len({r["conn"] for r in reqs}), nq, nfcgi, len(reqs)))
    ok &= p.tap("%struth: every request answered over TLS 1.3, the app made the queries asked "
                "for, every connection and ordinal one request's" % label)
    p = Problems()
    check_nginx(reqs, os.path.join(d, "nginx", "access.log"), p)
    ok &= p.tap("%struth: nginx's access log confirms each request's connection, ordinal, id "
                "and TLS 1.3" % label)
    p = Problems()
    logged = check_mariadb(reqs, os.path.join(d, "mariadb", "general.log"), php_ip, p)
    ok &= p.tap("%struth: MariaDB's general log confirms all %d connections (TLS, the request's "
                "queries in order, quit)" % (label, logged))

    with open(os.path.join(d, "found.json")) as f:
        found = json.load(f)
    known = fields_known(found)
    truths = [truth_tree(r) for r in reqs]
    with open(os.path.join(d, "truth.jsonl"), "w") as f:
        for t in truths:
            f.write(json.dumps(t) + "\n")
    # Found roots and true requests by identity; where a port served two
    # connections one after the other, paired in time order.
    roots = defaultdict(list)
    for q in found.get("requests", []):
        roots[vpcompare.found_key(q["root"], topo)].append(q)
    wanted = defaultdict(list)
    for t in truths:
        wanted[vpcompare.key_of(t["client"], "nginx", t["conn_index"])].append(t)
    pairs = []
    extra_nginx = []
    for k, ts in wanted.items():
        qs = sorted(roots.get(k, []), key=lambda q: q["root"].get("start_ns", 0))
        ts.sort(key=lambda t: t["start_ns"])
        pairs += [(t, qs[i] if i < len(qs) else None) for i, t in enumerate(ts)]
        extra_nginx += qs[len(ts):]
    true_calls = set()
    for t in truths:
        true_calls.add(vpcompare.key_of(t["fcgi"]["client"], "php", t["fcgi"]["conn_index"]))
        for i in range(t["db"]["queries"] + 1 + AUTH_ROUND_TRIPS):
            true_calls.add(vpcompare.key_of(t["db"]["client"], "mariadb", i))
    extra_nginx += [q for k, qs in roots.items() for q in qs if k[1] == "nginx" and k not in wanted]
    others = [q for k, qs in roots.items() for q in qs if k[1] != "nginx"]
    unknown = [q for q in others if vpcompare.found_key(q["root"], topo) not in true_calls]

    nfound = nright = nmarked = nmarked_right = ncomplete = 0
    setup_as_call = Counter()
    reasons = Counter()
    failures = []
    for t, q in pairs:
        if q is None:
            reasons["not found"] += 1
            failures.append({"truth": t, "why": "not found", "found": None})
            continue
        nfound += 1
        ncomplete += bool(q.get("complete", True))
        why = why_wrong(t, q, topo)
        if why is None:
            nright += 1
            db = q["root"]["calls"][0]["calls"]
            setup_as_call[len(db) - t["db"]["queries"] - 1] += 1
        else:
            reasons[re.sub(r"[\d.:]+", "N", why)] += 1
            failures.append({"truth": t, "why": why, "found": q})
        if q.get("exact"):
            nmarked += 1
            nmarked_right += why is None
    with open(os.path.join(d, "failures.jsonl"), "w") as f:
        for x in failures:
            f.write(json.dumps(x) + "\n")
    lost = sum(h.get("lost", 0) or 0 for h in found.get("hosts", []))
    n = len(truths)

    print("# found %d/%d, right %d, complete %d, marked exact %s; records lost %d" % (
        nfound, n, nright, ncomplete, nmarked if known["exact"] else "(no such field)", lost))
    print("# schema-2 fields in the analyzer's JSON: %s" % (
        ", ".join(k for k, v in sorted(known.items()) if v) or "none"))
    if nright:
        print("# right paths: authentication as a call in %d, in the setup in %d" % (
            setup_as_call[AUTH_ROUND_TRIPS], setup_as_call[0]))
    for why, count in reasons.most_common(6):
        print("# wrong: %d x %s" % (count, why))
    for x in failures[:3]:
        print("#   e.g. %s: %s" % (x["truth"]["rid"], x["why"]))
    if failures:
        diagnose_below_nginx(truths, found, topo)
    if failures:
        print("# all wrong paths: %s" % os.path.join(d, "failures.jsonl"))

    def tap(good, text):
        print("%s - %s%s" % ("ok" if good else "not ok", label, text))
        return good

    ok &= tap(n > 0 and nfound == n, "found: %d/%d requests entering at nginx (%.2f%%)" % (
        nfound, n, pct(nfound, n)))
    for q in extra_nginx[:3]:
        r = q["root"]
        print("#   extra root at nginx: %s #%s, %s request bytes, %s reply bytes" % (
            r["client"]["addr"], r["conn_index"], r.get("request_bytes"), r.get("reply_bytes")))
    ok &= tap(not extra_nginx, "extra roots at nginx (not a request the client sent: a "
              "handshake, ticket or goodbye taken as one): %d" % len(extra_nginx))
    for q in unknown[:3]:
        r = q["root"]
        print("#   other root: %s -> %s #%s, %s request bytes, %s reply bytes" % (
            r["client"]["addr"], topo.name(r["server"]["addr"]), r["conn_index"],
            r.get("request_bytes"), r.get("reply_bytes")))
    ok &= tap(not unknown, "other roots that are no true call: %d (%d roots beside nginx's "
              "in all; true calls torn from their request count as wrong paths)" % (
                  len(unknown), len(others)))
    ok &= tap(nfound > 0 and pct(nright, nfound) >= args.min_right,
              "paths right: %d/%d = %.2f%% (at least %g%%)" % (
                  nright, nfound, pct(nright, nfound), args.min_right))
    if known["exact"]:
        ok &= tap(nmarked_right == nmarked, "marked exact: %d/%d = %.2f%%, right among them "
                  "%d/%d" % (nmarked, nfound, pct(nmarked, nfound), nmarked_right, nmarked))
    else:
        print("ok - %smarked exact: # SKIP requests[].exact not in vpath-analyze's JSON yet" %
              label)
    ok &= tap(ncomplete == nfound or lost > 0, "complete: %d/%d = %.2f%% (all of them when "
              "no record was lost; %d lost)" % (ncomplete, nfound, pct(ncomplete, nfound), lost))
    return 0 if ok else 1


def fake_found(args):
    """found.json as a perfect analyzer would write it, from the truth."""
    with open(os.path.join(args.dir, "topology.json")) as f:
        addr = {s["name"]: s["addr"] for s in json.load(f)}
    reqs = load_client(os.path.join(args.dir, "client.jsonl"), Problems())

    def call(client, server, index, calls, basis, outcome="complete", setup_ns=0):
        return {"client": {"addr": client}, "server": {"addr": addr[server]},
                "conn_index": index, "calls": calls, "outcome": outcome, "setup_ns": setup_ns,
                "link": {"basis": basis, "exact": True, "candidates": 1}}
    out = []
    for i, r in enumerate(reqs):
        # alternate the two right conventions for the authentication round trip
        auth = AUTH_ROUND_TRIPS if i % 2 else 0
        db = [call(r["db"][0], "mariadb", j, [], "connect" if j == 0 else "thread",
                   setup_ns=1000 if j == 0 else 0) for j in range(auth + r["asked"] + 1)]
        db[-1]["outcome"] = "one-way"
        fcgi = call(r["fcgi"][0], "php", r["fcgi"][1], db, "handoff")
        root = call(r["client"], "nginx", r["conn_index"], [fcgi], "root",
                    setup_ns=1000 if r["conn_index"] == 0 else 0)
        root["start_ns"] = r["start_ns"]
        out.append({"id": i, "complete": True, "exact": True, "root": root})
    with open(os.path.join(args.dir, "found.json"), "w") as f:
        json.dump({"version": 2, "hosts": [], "processes": [], "requests": out}, f)
    return 0


def break_found(found, what):
    reqs = found["requests"]

    def db_calls(q):
        calls = q["root"].get("calls", [])
        return calls[0].get("calls", []) if len(calls) == 1 else []
    with_queries = [q for q in reqs if len(db_calls(q)) >= 3]
    victim = with_queries[len(with_queries) // 2]
    db = db_calls(victim)
    if what == "found-drop":
        db.pop(-2)  # a query, or the authentication round trip
    elif what == "found-move":
        other = next(q for q in reversed(with_queries) if q is not victim)
        db_calls(other).insert(1, db.pop(-2))
    elif what == "found-swap":
        db[-2], db[-3] = db[-3], db[-2]
    elif what == "found-handshake":
        fake = copy.deepcopy(victim)
        fake["root"]["calls"] = []
        fake["root"]["conn_index"] += 1000
        fake["id"] = max(q["id"] for q in reqs) + 1
        reqs.append(fake)
    elif what == "found-quit":
        db[-1]["outcome"] = "incomplete"
    elif what == "found-exact":
        db.pop(-2)
        victim["exact"] = True


def break_results(args):
    d = args.dir
    if args.what.startswith("found-"):
        path = os.path.join(d, "found.json")
        with open(path) as f:
            found = json.load(f)
        break_found(found, args.what)
        with open(path, "w") as f:
            json.dump(found, f)
        return 0
    path, pick = {
        "mariadb-log": (os.path.join("mariadb", "general.log"), QUERY_RID.search),
        "nginx-log": (os.path.join("nginx", "access.log"), lambda line: True),
    }[args.what]
    path = os.path.join(d, path)
    with open(path) as f:
        lines = f.readlines()
    candidates = [i for i, line in enumerate(lines) if pick(line)]
    victim = candidates[len(candidates) // 3]
    if args.what == "nginx-log":
        fields = lines[victim].split(" ")
        fields[2] = "s0n0"
        lines[victim] = " ".join(fields)
    else:
        del lines[victim]
    with open(path, "w") as f:
        f.writelines(lines)
    return 0


BREAKS = ["found-drop", "found-move", "found-swap", "found-handshake", "found-quit",
          "found-exact", "mariadb-log", "nginx-log"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--dir", required=True)
    c.add_argument("--topology", required=True)
    c.add_argument("--label", default="")
    c.add_argument("--min-right", type=float, default=100.0,
                   help="the least share of right paths that passes, in percent")
    f = sub.add_parser("fake-found")
    f.add_argument("--dir", required=True)
    b = sub.add_parser("break")
    b.add_argument("--dir", required=True)
    b.add_argument("--what", required=True, choices=BREAKS)
    args = ap.parse_args()
    try:
        return {"compare": compare, "fake-found": fake_found, "break": break_results}[args.cmd](args)
    except (OSError, ValueError, KeyError, IndexError, StopIteration, TypeError) as e:
        print("check.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
