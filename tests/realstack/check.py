#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Ground truth of the real-servers scenario, and its comparison with the
paths vpath-analyze found.

  check.py compare --dir DIR --topology TOPO.json [--label TEXT]
      DIR holds client.jsonl (the client's record), nginx/access.log,
      postgres.log (log_statement=all), redis-slowlog.json and found.json
      (vpath-analyze paths --json).  Prints TAP lines; exit 1 on any failure.
  check.py witness --dir DIR --topology TOPO.json [--pipelines FILE.json]
      A run recorded with --capture: every call's witness (found.json) is
      held against the servers' own logs (nginx's request line and status,
      PostgreSQL's statement, Redis's command); the share labelled is
      printed; the pipelines of pipeline.py must come out as one exchange
      each, with their own labels.  TAP lines; exit 1 on any failure.
  check.py redis-log --addr IP:PORT
      Redis's slowlog (every command, with its client's address) as JSON.
  check.py break --dir DIR --what KIND
      Breaks one thing in DIR (a copy of a run's results), to show that
      compare fails when it should: found-drop (a database call missing from
      a path), found-move (a call under the wrong request), pg-log (a query
      missing from PostgreSQL's log), redis-log (a command missing from
      Redis's log), nginx-log (a request id nginx did not log),
      witness-label (a labelled SQL statement changed), witness-pipeline
      (the second request of the HTTP pipeline missing).

The truth does not come from vpath.  The client knows each request's own
connection (local ip:port) and ordinal on it; the app tells in reply headers
which nginx connection the request came on, and which back-end connection
and ordinal each of its calls used (app.py).  Then the servers' own logs
confirm all of it: nginx's access log (client address, ordinal on the
connection, request id), PostgreSQL's statement log (every query with its
client port and the request id in a comment, hence its ordinal on that
connection; a connection that ran no warm-up query was opened inside a
request, after its startup and authentication round trips) and Redis's
slowlog (every command with its client address, in execution order).
Only then are the paths compared, call by call, with vpcompare.py's
comparison (tests/e2e): every request must be found entering at nginx, with
one call to the app under it and, under that, exactly the true PostgreSQL
and Redis exchanges in the true order.
"""
import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
import vpcompare  # noqa: E402

PG_AUTH_ROUND_TRIPS = 3  # app.py: scram-sha-256 with sslmode=disable
CALL_SERVER = {"q": "postgres", "a": "postgres", "r": "redis"}

PG_LINE = re.compile(r"^\S+ \S+ \S+ \[(\d+)\] (\S+)\((\d+)\) LOG:  (.*)$")
RID = re.compile(r"/\* rid=(\w+) \*/")
# Statements before the recording: a pool connection's first, and the mark
# on every connection when the client warmed the stack up first.
BEFORE_RECORDING = ("/* warmup */", "/* mark */")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, text):
        self.items.append(text)

    def tap(self, name, limit=5):
        print("%s - %s" % ("not ok" if self.items else "ok", name))
        for p in self.items[:limit]:
            print("#   " + p)
        if len(self.items) > limit:
            print("#   ... and %d more" % (len(self.items) - limit))
        return not self.items


def parse_calls(text):
    """X-Calls -> [(kind, addr, ordinal, us)]"""
    calls = []
    for item in filter(None, (text or "").split(";")):
        kind, addr, ordinal, us = item.split(" ")
        calls.append((kind, addr, int(ordinal), int(us)))
    return calls


def load_client(path, problems):
    """The requests that count, and those sent before the recording."""
    reqs, warm = [], []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("warmup"):
                warm.append(rec)
                continue
            if "error" in rec or rec.get("status") != 200:
                problems.add("request %d: %s" % (rec["n"], rec.get("error") or rec.get("status")))
                continue
            rec["calls"] = parse_calls(rec["calls"])
            hop_addr, hop_ordinal = rec["hop"].split(" ")
            rec["hop"] = (hop_addr, int(hop_ordinal))
            counted = {k: sum(1 for c in rec["calls"] if c[0] == k) for k in "qr"}
            if counted["q"] != int(rec["sql"]) or counted["r"] != int(rec["redis"]):
                problems.add("request %s: X-Sql/X-Redis %s/%s but X-Calls has %d/%d" % (
                    rec["rid"], rec["sql"], rec["redis"], counted["q"], counted["r"]))
            reqs.append(rec)
    return reqs, warm


def check_nginx(reqs, warm, path, problems):
    # A client port can serve two connections one after the other, so one
    # (address, ordinal) can hold two requests: compared as a multiset.
    seen, nlogged = defaultdict(Counter), 0
    with open(path) as f:
        for line in f:
            addr, nth, rid, status = line.split()[:4]
            seen[(addr, int(nth) - 1)][(rid, status)] += 1
            nlogged += 1
    for r in reqs:
        nth = r.get("conn_ordinal", r["conn_index"])
        got = seen[(r["client"], nth)]
        want = (r["rid"], "200")
        if got[want]:
            got[want] -= 1
        elif not +got:
            problems.add("%s #%d not in nginx's log" % (r["client"], nth))
        else:
            problems.add("%s #%d: nginx logged %s, the client got %s" % (
                r["client"], nth, sorted(+got), r["rid"]))
    if nlogged != len(reqs) + len(warm):
        problems.add("nginx logged %d requests, the client made %d" % (
            nlogged, len(reqs) + len(warm)))


def postgres_log(path):
    """(client addr, ordinal) -> request id of every query the app made."""
    statements = defaultdict(list)  # client addr -> statements in order
    with open(path) as f:
        for line in f:
            m = PG_LINE.match(line.rstrip("\n"))
            if m and m.group(4).startswith("statement: "):
                statements["%s:%s" % (m.group(2), m.group(3))].append(m.group(4))
    queries = {}
    fresh = set()
    for addr, stmts in statements.items():
        last = max((i for i, s in enumerate(stmts)
                    if any(m in s for m in BEFORE_RECORDING)), default=None)
        if last is not None:
            stmts, base = stmts[last + 1:], 0
        else:
            base = PG_AUTH_ROUND_TRIPS
            fresh.add(addr)
        for i, s in enumerate(stmts):
            m = RID.search(s)
            queries[(addr, base + i)] = m.group(1) if m else None
    return queries, fresh


def background_calls(path):
    """The app's background connections (app.py, VPATH_BACKGROUND) and how
    many calls they made, from its log."""
    addrs, calls = set(), 0
    with open(path) as f:
        for line in f:
            m = re.search(r"background calls from (\S+) and (\S+)", line)
            if m:
                addrs = {m.group(1), m.group(2)}
            m = re.search(r"background stopped after (\d+) rounds and a close", line)
            if m:
                # a query and a command per round, and PostgreSQL's Terminate
                calls = 2 * int(m.group(1)) + 1
    return addrs, calls


def check_postgres(reqs, path, background, problems):
    queries, fresh = postgres_log(path)
    queries = {k: v for k, v in queries.items() if k[0] not in background}
    fresh -= background
    claimed = 0
    for r in reqs:
        for kind, addr, ordinal, _ in r["calls"]:
            if kind == "a":
                if addr not in fresh or ordinal >= PG_AUTH_ROUND_TRIPS:
                    problems.add("request %s: connection setup on %s #%d not in the log" % (
                        r["rid"], addr, ordinal))
            elif kind == "q":
                claimed += 1
                got = queries.get((addr, ordinal), "(no statement)")
                if got != r["rid"]:
                    problems.add("request %s: query on %s #%d, PostgreSQL logged %s there" % (
                        r["rid"], addr, ordinal, got))
    if claimed != len(queries):
        problems.add("PostgreSQL logged %d queries from the app, the app made %d" % (
            len(queries), claimed))
    return len(queries), len(fresh)


def check_redis(reqs, path, app_ip, background, problems):
    with open(path) as f:
        entries = json.load(f)
    commands = {}
    per_conn = defaultdict(int)
    for e in sorted(entries, key=lambda e: e["id"]):
        if e["client"].rsplit(":", 1)[0] != app_ip or e["client"] in background:
            continue
        commands[(e["client"], per_conn[e["client"]])] = e["args"]
        per_conn[e["client"]] += 1
    claimed = {}
    for r in reqs:
        for kind, addr, ordinal, _ in r["calls"]:
            if kind != "r":
                continue
            args = commands.get((addr, ordinal))
            claimed[(addr, ordinal)] = r["rid"]
            if args is None:
                problems.add("request %s: command on %s #%d not in Redis's log" % (
                    r["rid"], addr, ordinal))
            elif args[0].upper() == "SET" and args[1] != "sess:" + r["rid"]:
                problems.add("request %s: Redis ran %s on %s #%d" % (
                    r["rid"], " ".join(args[:2]), addr, ordinal))
    if len(claimed) != len(commands):
        problems.add("Redis logged %d commands from the app, the app made %d" % (
            len(commands), len(claimed)))
    return len(commands)


def truth_tree(r, rt_of_root):
    calls = [{"client": addr, "server": CALL_SERVER[kind], "conn_index": ordinal,
              "rt_ns": us * 1000, "calls": []} for kind, addr, ordinal, us in r["calls"]]
    hop = {"client": r["hop"][0], "server": "app", "conn_index": r["hop"][1], "rt_ns": 0,
           "calls": calls}
    return {"client": r["client"], "server": "nginx", "conn_index": r["conn_index"],
            "rt_ns": rt_of_root, "calls": [hop], "path": "", "session": 0, "seq": r["n"]}


def compare(args):
    d = args.dir
    label = args.label + " " if args.label else ""
    with open(args.topology) as f:
        app_ip = next(s["addr"] for s in json.load(f) if s["name"] == "app").rsplit(":", 1)[0]
    ok = True
    p = Problems()
    reqs, warm = load_client(os.path.join(d, "client.jsonl"), p)
    nq = sum(int(r["sql"]) for r in reqs)
    nr = sum(int(r["redis"]) for r in reqs)
    nfresh = sum(1 for r in reqs if any(c[0] == "a" for c in r["calls"]))
    nfile = sum(1 for r in reqs if not r["calls"])
    if warm:
        print("# %d requests before the recording started (warm-up)" % len(warm))
    print("# %d requests: %d SQL queries, %d Redis commands, %d fresh PostgreSQL connections, "
          "%d requests without back-end calls" % (len(reqs), nq, nr, nfresh, nfile))
    ok &= p.tap("%struth: every request answered, the app's counts agree with its calls" %
                label)
    p = Problems()
    check_nginx(reqs, warm, os.path.join(d, "nginx", "access.log"), p)
    ok &= p.tap("%struth: nginx's access log confirms each request's connection, ordinal and id"
                % label)
    p = Problems()
    background, nbackground_true = background_calls(os.path.join(d, "app.log"))
    logged, fresh = check_postgres(reqs, os.path.join(d, "postgres.log"), background, p)
    ok &= p.tap("%struth: PostgreSQL's statement log confirms all %d queries (connection, "
                "ordinal, request id; %d connections opened in requests)" %
                (label, logged, fresh))
    p = Problems()
    logged = check_redis(reqs, os.path.join(d, "redis-slowlog.json"), app_ip, background, p)
    ok &= p.tap("%struth: Redis's command log confirms all %d commands (connection, ordinal)" %
                (label, logged))

    truth_path = os.path.join(d, "truth.jsonl")
    with open(truth_path, "w") as f:
        for r in reqs:
            f.write(json.dumps(truth_tree(r, r["rt_ns"])) + "\n")
    cmp_args = argparse.Namespace(truth=truth_path, found=os.path.join(d, "found.json"),
                                  topology=args.topology, tap=True, label=args.label,
                                  failures=os.path.join(d, "failures.jsonl"))
    ok &= vpcompare.compare(cmp_args) == 0
    # Nothing else ran in these namespaces but the app's background thread: any
    # other root the client did not send is a call torn from its request (or
    # invented).  A background call is a root with no calls of its own.
    with open(os.path.join(d, "found.json")) as f:
        found = json.load(f)
    topo = vpcompare.Topology(args.topology)
    sent = {(r["client"], "nginx", r["conn_index"]) for r in reqs}
    extra, nbackground = [], 0
    for q in found.get("requests", []):
        if vpcompare.found_key(q["root"], topo) in sent:
            continue
        if q["root"]["client"]["addr"] in background and not q["root"].get("calls"):
            nbackground += 1
        else:
            extra.append(q)
    p = Problems()
    if background:
        print("# %d paths are the app's background calls, from %s" % (
            nbackground, " and ".join(sorted(background))))
        if nbackground != nbackground_true:
            p.add("the app made %d background calls, %d found as paths of their own" % (
                nbackground_true, nbackground))
    for q in extra:
        root = q["root"]
        p.add("request %s: %s -> %s #%s, %d calls" % (q["id"], root["client"]["addr"],
              root["server"]["addr"], root["conn_index"], len(root.get("calls", []))))
    ok &= p.tap("%sno other path found than the client's requests and the app's background calls (%d)" % (label, len(extra)))
    return 0 if ok else 1


def nginx_requests(path):
    """(client addr, 0-based ordinal) -> [(method, target, status)] from the
    access log's quoted request line (the last field of the truth format);
    a list, as a reused client port holds one request per connection."""
    seen = defaultdict(list)
    with open(path) as f:
        for line in f:
            fields = line.split()
            m = re.search(r'"(\S+) (\S+) HTTP/1\.[01]"\s*$', line)
            if m:
                seen[(fields[0], int(fields[1]) - 1)].append(
                    (m.group(1), m.group(2), int(fields[3])))
    return seen


def postgres_statements(path):
    """(client addr, ordinal) -> statement text, ordinals as postgres_log counts them."""
    statements = defaultdict(list)
    last = None
    with open(path) as f:
        for line in f:
            m = PG_LINE.match(line.rstrip("\n"))
            if m:
                last = None
                if m.group(4).startswith("statement: "):
                    last = statements["%s:%s" % (m.group(2), m.group(3))]
                    last.append(m.group(4)[len("statement: "):])
            elif re.match(r"\d{4}-\d\d-\d\d ", line):  # another process's line
                last = None
            elif last is not None:  # a statement's next line
                last[-1] += "\n" + line.rstrip("\n")
    out = {}
    for addr, stmts in statements.items():
        before = max((i for i, s in enumerate(stmts)
                      if any(m in s for m in BEFORE_RECORDING)), default=None)
        base = 0 if before is not None else PG_AUTH_ROUND_TRIPS
        for i, s in enumerate(stmts[before + 1 if before is not None else 0:]):
            out[(addr, base + i)] = s
    return out


def printable(text):
    """Text as the analyzer shows it (proto.c vp_proto_text): white space runs
    as one space, other bytes outside printable ASCII as '?'."""
    out = re.sub(r"[ \t\r\n]+", " ", text).strip()
    return "".join(c if 0x21 <= ord(c) <= 0x7e or c == " " else "?" for c in out)


def walk(call, parent=None):
    yield call, parent
    for c in call.get("calls", []):
        yield from walk(c, call)


def witness_check(args):
    d = args.dir
    with open(args.topology) as f:
        servers = {s["addr"]: s["name"] for s in json.load(f)}
    with open(os.path.join(d, "found.json")) as f:
        found = json.load(f)
    nginx = nginx_requests(os.path.join(d, "nginx", "access.log"))
    pg = postgres_statements(os.path.join(d, "postgres.log"))
    with open(os.path.join(d, "redis-slowlog.json")) as f:
        entries = json.load(f)
    redis_cmds, per_conn = {}, defaultdict(int)
    for e in sorted(entries, key=lambda e: e["id"]):
        redis_cmds[(e["client"], per_conn[e["client"]])] = e["args"]
        per_conn[e["client"]] += 1

    total, labelled = defaultdict(int), defaultdict(int)
    p = Problems()

    def truth_of(call, root):
        """What the server's own log says this call was, or None."""
        name = servers.get(call["server"]["addr"])
        key = (call["client"]["addr"], call["conn_index"])
        if name == "nginx":
            return nginx.get(key) or None
        if name == "app":  # nginx passes the request line on unchanged
            return nginx.get((root["client"]["addr"], root["conn_index"])) or None
        if name == "postgres":
            return pg.get(key)
        if name == "redis":
            return redis_cmds.get(key)
        return None

    def right(call, root, w):
        name = servers.get(call["server"]["addr"])
        truth = truth_of(call, root)
        if truth is None:
            return "no log entry at %s #%d" % (call["client"]["addr"], call["conn_index"])
        if name in ("nginx", "app"):
            # A reused client port logged one line per connection: the
            # witness must match one of them.
            wrong = None
            for method, target, status in truth:
                if w.get("protocol") != "http" or w.get("method") != method or \
                        w.get("target") != target:
                    wrong = "logged %s %s" % (method, target)
                elif name == "nginx" and w.get("status") != status:
                    wrong = "logged status %d" % status
                else:
                    return None
            return wrong
        if name == "postgres":
            text, logged = w.get("statement", ""), printable(truth)
            if w.get("protocol") != "postgresql" or \
                    not (logged.startswith(text) if w.get("cut") else logged == text):
                return "logged %r" % logged[:80]
            return None
        if w.get("protocol") != "redis" or w.get("command") != truth[0].upper():
            return "logged %s" % truth[0]
        return None

    for q in found.get("requests", []):
        root = q["root"]
        for call, _ in walk(root):
            name = servers.get(call["server"]["addr"])
            if name is None:
                continue
            total[name] += 1
            w = call.get("witness")
            if not w:
                continue
            labelled[name] += 1
            why = right(call, root, w)
            if why:
                p.add("request %s: %s #%d labelled %r, %s" % (
                    q["id"], call["client"]["addr"], call["conn_index"], w.get("label"), why))
    shares = ", ".join("%s %d/%d (%.1f%%)" % (n, labelled[n], total[n],
                                              100.0 * labelled[n] / total[n] if total[n] else 0)
                       for n in ("nginx", "app", "postgres", "redis"))
    print("# calls labelled: " + shares)
    ok = p.tap("witness: every labelled call carries what the servers' own logs say it was "
               "(nginx: request line and status, PostgreSQL: statement, Redis: command)")
    p = Problems()
    for n in ("nginx", "app", "postgres", "redis"):
        if not labelled[n]:
            p.add("no call to %s labelled (of %d)" % (n, total[n]))
    ok &= p.tap("witness: calls to each server are labelled")

    if args.pipelines:
        with open(args.pipelines) as f:
            pipelines = json.load(f)
        for pl in pipelines:
            p = Problems()
            roots = sorted((q["root"] for q in found.get("requests", [])
                            if q["root"]["client"]["addr"] == pl["client"]),
                           key=lambda r: r["conn_index"])
            if [r["conn_index"] for r in roots] != list(range(len(pl["sent"]))):
                p.add("%s: exchanges %s found, %d sent in one write" % (
                    pl["client"], [r["conn_index"] for r in roots], len(pl["sent"])))
            for r, sent in zip(roots, pl["sent"]):
                w = r.get("witness") or {}
                if pl["protocol"] == "http":
                    want = "%s %s %d" % (sent["method"], sent["target"], sent["status"])
                    logged = nginx.get((pl["client"], r["conn_index"]), [])
                    if (sent["method"], sent["target"], sent["status"]) not in logged:
                        p.add("%s #%d: nginx logged %s" % (pl["client"], r["conn_index"], logged))
                else:
                    want = sent["command"]
                    logged = redis_cmds.get((pl["client"], r["conn_index"]))
                    if not logged or logged[0].upper() != want:
                        p.add("%s #%d: Redis logged %s" % (pl["client"], r["conn_index"], logged))
                if w.get("label") != want:
                    p.add("%s #%d: labelled %r, sent %r" % (
                        pl["client"], r["conn_index"], w.get("label"), want))
            ok &= p.tap("witness: a %s pipeline of %d requests in one write comes out as %d "
                        "exchanges with their own labels" % (
                            pl["protocol"], len(pl["sent"]), len(pl["sent"])))
    return 0 if ok else 1


def redis_log(args):
    import redis
    host, port = args.addr.rsplit(":", 1)
    conn = redis.Connection(host=host, port=int(port), socket_timeout=30)
    conn.send_command("SLOWLOG", "GET", "-1")
    entries = conn.read_response()

    def text(b):
        return b.decode(errors="replace") if isinstance(b, bytes) else str(b)
    json.dump([{"id": e[0], "args": [text(a) for a in e[3]], "client": text(e[4])}
               for e in entries], sys.stdout)
    return 0


def break_results(args):
    d = args.dir
    if args.what.startswith("witness-"):
        path = os.path.join(d, "found.json")
        with open(path) as f:
            found = json.load(f)
        if args.what == "witness-label":  # a statement that was not run
            w = next(c["witness"] for q in found["requests"] for c, _ in walk(q["root"])
                     if c.get("witness", {}).get("protocol") == "postgresql")
            w["statement"] = "#" + w["statement"][1:]
        else:  # witness-pipeline: the second request of a pipeline joined to the first
            with open(os.path.join(d, "pipeline.json")) as f:
                client = json.load(f)[0]["client"]
            found["requests"] = [q for q in found["requests"]
                                 if (q["root"]["client"]["addr"], q["root"]["conn_index"]) !=
                                 (client, 1)]
        with open(path, "w") as f:
            json.dump(found, f)
        return 0
    if args.what.startswith("found-"):
        path = os.path.join(d, "found.json")
        with open(path) as f:
            found = json.load(f)
        hops = [q["root"]["calls"][0] for q in found["requests"]
                if q["root"]["calls"] and q["root"]["calls"][0]["calls"]]
        call = hops[0]["calls"].pop()
        if args.what == "found-move":
            hops[1]["calls"].append(call)
        with open(path, "w") as f:
            json.dump(found, f)
        return 0
    path, drop = {
        "pg-log": ("postgres.log", lambda line: RID.search(line)),
        "redis-log": ("redis-slowlog.json", None),
        "nginx-log": (os.path.join("nginx", "access.log"), lambda line: True),
    }[args.what]
    path = os.path.join(d, path)
    if drop is None:
        with open(path) as f:
            entries = json.load(f)
        # A command of a request (item:/sess:/hits: keys): the check does not
        # hold the background thread's commands, or the PINGs that open pool
        # connections, against the requests, so dropping one of those proves nothing.
        requests = [i for i, e in enumerate(entries)
                    if len(e["args"]) > 1 and e["args"][1].split(":")[0] in ("item", "sess", "hits")]
        entries.pop(requests[len(requests) // 2])
        with open(path, "w") as f:
            json.dump(entries, f)
        return 0
    with open(path) as f:
        lines = f.readlines()
    candidates = [i for i, line in enumerate(lines) if drop(line)]
    victim = candidates[len(candidates) // 3]
    if args.what == "nginx-log":
        fields = lines[victim].split(" ")
        fields[2] = "0" * 32
        lines[victim] = " ".join(fields)
    else:
        del lines[victim]
    with open(path, "w") as f:
        f.writelines(lines)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--dir", required=True)
    c.add_argument("--topology", required=True)
    c.add_argument("--label", default="")
    w = sub.add_parser("witness")
    w.add_argument("--dir", required=True)
    w.add_argument("--topology", required=True)
    w.add_argument("--pipelines")
    r = sub.add_parser("redis-log")
    r.add_argument("--addr", required=True)
    b = sub.add_parser("break")
    b.add_argument("--dir", required=True)
    b.add_argument("--what", required=True,
                   choices=["found-drop", "found-move", "pg-log", "redis-log", "nginx-log",
                            "witness-label", "witness-pipeline"])
    args = ap.parse_args()
    try:
        return {"compare": compare, "witness": witness_check, "redis-log": redis_log,
                "break": break_results}[args.cmd](args)
    except (OSError, ValueError, KeyError) as e:
        print("check.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
