#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath-analyze sqlite (docs/sqlite.md) on a vApp recording: the tables hold
# what paths --json says, and every query of docs/sqlite.md (read from the
# doc, so the two cannot drift apart) runs and answers what paths --json
# answers.  Uses Python's sqlite3 module, not the sqlite3 command.
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
A=$VPATH_ANALYZE
d=$(scratch_dir)

if ! python3 -c 'import sqlite3' 2>/dev/null; then
	skip "sqlite output" "python3 has no sqlite3 module"
	exit 0
fi
output_test_begin sqlite "$d" || exit 1

"$A" sqlite "${REC_FILES[@]}" 2>"$d/err"
[ $? -eq 2 ] && grep -q '^error: sqlite needs -o FILE$' "$d/err"
check "sqlite without -o is refused with one line" test $? -eq 0
echo stale >"$d/paths.db"
"$A" sqlite -o "$d/paths.db" "${REC_FILES[@]}" 2>"$d/err"
[ $? -eq 0 ] &&
	python3 -c 'import sqlite3,sys; sqlite3.connect(sys.argv[1]).execute("select 1 from requests")' "$d/paths.db"
check "sqlite -o writes the database (exit 0), replacing a file that was there" test $? -eq 0
"$A" sqlite -o /nonexistent/dir/x.db "${REC_FILES[@]}" 2>"$d/err"
[ $? -eq 1 ] && [ "$(wc -l <"$d/err")" -eq 1 ]
check "an unwritable path is one error line and exit 1" test $? -eq 0

check "the tables hold what paths --json says (requests, calls, tree, evidence, hosts)" \
	python3 - "$d/paths.json" "$d/paths.db" <<'PY'
import json, sqlite3, sys
paths = json.load(open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
bad = []
reqs = {r["id"]: r for r in paths["requests"]}
rows = {r[0]: r for r in db.execute("select id, duration_ns, complete, exact, calls from requests")}
if set(rows) != set(reqs):
    bad.append("request ids differ: %d in db, %d in JSON" % (len(rows), len(reqs)))
def flat(c, depth, out):
    out.append((depth, c))
    for k in c["calls"]:
        flat(k, depth + 1, out)
    return out
for rid, r in reqs.items():
    calls = flat(r["root"], 0, [])
    row = rows.get(rid)
    if not row or row[1] != r["root"]["duration_ns"] or bool(row[2]) != r["complete"] or \
            bool(row[3]) != r["exact"] or row[4] != len(calls):
        bad.append("request %d: %s" % (rid, row))
        continue
    got = db.execute("select depth, duration_ns, link_basis, link_exact, outcome, conn_index, server_addr, "
                     "server_port, request_bytes, reply_bytes, parent_id, id, self_ns from calls "
                     "where request_id = ? order by position", (rid,)).fetchall()
    ids = {}
    for (depth, c), g in zip(calls, got):
        want = (depth, c["duration_ns"], c["link"]["basis"], int(c["link"]["exact"]), c["outcome"],
                c["conn_index"], c["server"]["addr"].rsplit(":", 1)[0], int(c["server"]["addr"].rsplit(":", 1)[1]),
                c["request_bytes"], c["reply_bytes"])
        if tuple(g[:10]) != want:
            bad.append("request %d call: %s != %s" % (rid, g[:10], want))
        if g[12] < 0:
            bad.append("request %d: negative self time" % rid)
    # parent_id follows the tree: each call's parent is the nearest shallower call before it
    stack = []
    for g in got:
        while stack and stack[-1][0] >= g[0]:
            stack.pop()
        if (stack[-1][1] if stack else None) != g[10]:
            bad.append("request %d: parent of call %d" % (rid, g[11]))
        stack.append((g[0], g[11]))
    total_self = sum(g[12] for g in got)
    # Nesting holds where links are decided by evidence (an inferred link may be wrong).
    if r["exact"] and total_self > r["root"]["duration_ns"]:
        bad.append("request %d: self times add up to more than the request" % rid)
# A server's time lies within its recorded client's (sends are stamped when they return:
# the woken client can return first, on one machine by 0.1 ms under load).
late = db.execute("select count(*) from calls where client_host is not null and outcome = 'complete' "
                  "and server_end_ns > end_ns").fetchone()[0]
if late:
    bad.append("%d calls: the server's time ends after its client had the reply" % late)
anc = db.execute("select count(*) from call_ancestors").fetchone()[0]
want_anc = sum(d for r in reqs.values() for d, _ in flat(r["root"], 0, []))
if anc != want_anc:
    bad.append("call_ancestors: %d pairs, want %d" % (anc, want_anc))
hosts = db.execute("select name, records, lost from hosts order by id").fetchall()
if [(h["name"], h["records"], h["lost"]) for h in paths["hosts"]] != hosts:
    bad.append("hosts differ")
for b in bad[:10]:
    print("# " + b)
print("# %d requests, %d ancestor pairs" % (len(rows), anc))
sys.exit(1 if bad else 0)
PY

# Every query of the doc, by its name; the answers that paths --json can give are compared.
python3 - docs/sqlite.md "$d/paths.db" "$d/paths.json" <<'PY'
import json, re, sqlite3, sys
doc = open(sys.argv[1]).read()
db = sqlite3.connect(sys.argv[2])
paths = json.load(open(sys.argv[3]))
queries = re.findall(r"<!-- query: ([a-z-]+) -->\n```sql\n(.*?)```", doc, re.S)
blocks = len(re.findall(r"```sql", doc))
print(("ok" if queries and len(queries) == blocks else "not ok") +
      " - docs/sqlite.md: %d named queries, %d sql blocks" % (len(queries), blocks))

def ends(c):
    return [c] + [x for k in c["calls"] for x in ends(k)]
def name(e, hosts):  # VP_NAME_SERVICE
    return e["addr"] if e["host"] is None else "%s %s :%s" % (hosts[e["host"]]["name"], e["process"], e["addr"].rsplit(":", 1)[1])
hosts = paths["hosts"]
reqs = paths["requests"]

def expect(qname, rows):
    if qname == "slowest-per-entry":
        best = {}
        for r in reqs:
            e = name(r["root"]["server"], hosts)
            best[e] = max(best.get(e, 0), r["root"]["duration_ns"])
        first = {}
        for row in rows:
            first.setdefault(row[0], row[2])
        return all(abs(first[e] * 1e6 - best[e]) < 1 for e in best) and set(first) == set(best)
    if qname == "slowest-waited-on":
        slow = max(reqs, key=lambda r: r["root"]["duration_ns"])
        return len(rows) == len(ends(slow["root"]))
    if qname == "hb-join-first":
        want = {}
        for r in reqs:
            def walk(c, depth):
                if depth >= 2:
                    want[c["server"]["addr"]] = want.get(c["server"]["addr"], 0) + c["reply_bytes"]
                for k in c["calls"]:
                    walk(k, depth + 1)
            walk(r["root"], 0)
        return sum(row[3] for row in rows) == sum(want.values())
    if qname == "hb-join-most-recent":
        return sum(row[2] for row in rows) == sum(len(ends(r["root"])) - 1 for r in reqs)
    if qname == "per-host":
        served = sum(1 for r in reqs for c in ends(r["root"]) if c["server"]["host"] is not None)
        return sum(row[1] for row in rows) == served
    if qname == "evidence":
        return sum(row[2] for row in rows) == sum(len(ends(r["root"])) for r in reqs)
    if qname == "patterns":
        return rows[0][0] == 1 and sum(1 for _ in rows) <= 10
    if qname == "logs-of-slowest":
        slow = max(reqs, key=lambda r: r["root"]["duration_ns"])
        return len(rows) == sum(len(c.get("logs", [])) for c in ends(slow["root"]))
    if qname == "queue-hops":
        return sum(row[2] for row in rows) == sum(
            1 for r in reqs for c in ends(r["root"]) if c["link"]["basis"] == "queued")
    if qname == "dominant-backend":
        return 0 < sum(row[3] for row in rows) <= 100.5
    return True

for qname, sql in queries:
    try:
        rows = db.execute(sql).fetchall()
    except sqlite3.Error as e:
        print("not ok - query %s runs: %s" % (qname, e))
        continue
    if not rows and not (qname in ("logs-of-slowest", "queue-hops") and expect(qname, rows)):
        print("not ok - query %s answers (no rows)" % qname)
        continue
    for row in rows[:3]:
        print("#   " + " | ".join(str(x) for x in row))
    print(("ok" if expect(qname, rows) else "not ok") + " - query %s answers what paths --json says (%d rows)" %
          (qname, len(rows)))
    plan = " ".join(r[-1] for r in db.execute("EXPLAIN QUERY PLAN " + sql))
    print("#   plan: " + plan[:200])
PY
