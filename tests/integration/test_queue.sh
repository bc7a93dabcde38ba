#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A job queue over a Redis list (tests/queue/README.md): a threaded web
# front LPUSHes a job per request and answers; 2 worker processes BRPOP
# the jobs and make each job's 1-4 calls to a back end.  Recorded with
# --capture 256 on Redis's port, each job's work (the delivery and the
# calls its worker made until its next BRPOP) hangs under the LPUSH that
# published it, as an asynchronous hop (basis queued): every request found,
# every hop marked exact right, at least 99% of the jobs' work under the
# request that published them.  Recorded without capture, nothing new is
# stored (no payload records) and nothing is linked by a queue, and no
# request is marked exact (Redis was seen handing jobs over, handoff.h;
# also with BLMOVE and a stream).  Then the
# scorer must fail a copy with a hop moved or a request lost.  Then the
# same gates with BLMOVE (a reliable queue), with a stream's consumer
# group (XADD, XREADGROUP), through haproxy in TCP mode, and with
# pub/sub: the fan-out, every job PUBLISHed to 2 SUBSCRIBEd workers,
# each of which does it, on one session and on 4 (pushes read together,
# told apart by the job id in the workers' calls).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

e2e_require "a Redis-list job queue"
seed=${VPATH_SEED:-7}
requests=${QUEUE_REQUESTS:-1000}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
keep=$(scratch_dir)
web=10.211.0.1:8000 redis=10.211.0.2:6379 back=10.211.0.4:8100
# One run; its name, then run.sh's options.
q_run() { # name options...
	local name=$1 rc
	shift
	tests/queue/run.sh --requests "$requests" --seed "$seed" --keep "$keep/$name" "$@" \
		>"$keep/$name.out" 2>"$keep/$name.err"
	rc=$?
	sed 's/^/# /' "$keep/$name.out"
	if [ $rc -eq 2 ] && grep -q "missing:" "$keep/$name.err"; then
		skip "queue" "$(grep -o 'missing:.*' "$keep/$name.err")"
		exit 0
	fi
	[ $rc -ne 2 ] || sed 's/^/# /' "$keep/$name.err"
	return $rc
}
q_run run --min-accuracy 99
check "queue, --capture 256 on Redis: the gates pass (99% of the jobs' work under their request, every exact hop right)" \
	[ $? -eq 0 ]
q_run plain --no-capture
rc=$?
d=$keep/plain
check "queue without --capture: scored (every request found, none marked exact with its job's work elsewhere: the broker seen handing jobs over)" \
	[ $rc -eq 0 ]
# The recordings' payload records, and the hops found: none of either.
payloads() { "$VPATH_ANALYZE" dump "$1"/*.vpr 2>/dev/null | grep -c '^payload'; }
no_hops() { [ -s "$1/found.json" ] && ! grep -q '"queued"' "$1/found.json"; }
check "queue with --capture: payload stored ($(payloads "$keep/run") records)" \
	[ "$(payloads "$keep/run")" -gt 0 ]
check "queue without --capture: no payload stored ($(payloads "$d") records)" \
	[ "$(payloads "$d")" = 0 ]
check "queue without --capture: nothing linked as a queue hop" no_hops "$d"
# The hand-off reason reaches SQLite and the report, not only JSON and text.
json_hand_offs=$(grep -o '"may_hand_off": *true' "$d/found.json" | wc -l)
sql_hand_offs=$("$VPATH_ANALYZE" sqlite -o "$d/paths.db" "$d"/*.vpr 2>/dev/null &&
	python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("select sum(may_hand_off) from calls").fetchone()[0])' \
		"$d/paths.db")
check "queue without --capture: SQLite's calls.may_hand_off on the calls paths --json marks ($sql_hand_offs of $json_hand_offs)" \
	[ "$json_hand_offs" -gt 0 -a "$sql_hand_offs" = "$json_hand_offs" ]
report_hand_offs=$("$VPATH_ANALYZE" report -o "$d/report.html" "$d"/*.vpr 2>/dev/null &&
	grep -o '"handoff":true' "$d/report.html" | wc -l)
check "queue without --capture: the report's waterfalls mark hand-offs ($report_hand_offs calls)" \
	[ "${report_hand_offs:-0}" -gt 0 ]
python3 tests/queue/score.py --truth "$d/truth.jsonl" --jobs "$d/jobs.jsonl" --found "$d/found.json" \
	--web $web --redis $redis --back $back --break exact >/dev/null
check "queue without --capture: the scorer fails every request marked exact (the analyzer before it saw hand-offs)" \
	[ $? -eq 1 ]
# BLMOVE and a stream's XREADGROUP without --capture: the same gate
# (docs/analyzer.md "Hand-offs without payload").
for mode in blmove stream; do
	requests=${QUEUE_PLAIN_REQUESTS:-300} q_run "plain-$mode" --no-capture --mode "$mode"
	check "queue ($mode) without --capture: scored (none marked exact with its job's work elsewhere)" \
		[ $? -eq 0 ]
done
# The reliable-queue habit (BLMOVE onto a processing list, LREM after the
# work) and a stream's consumer group (XADD, XREADGROUP, XACK): the same
# gates, with fewer requests (the first job of each worker has no delivery
# seen, a fixed loss of a few requests).
for mode in blmove stream; do
	QUEUE_MODE_REQUESTS=${QUEUE_MODE_REQUESTS:-600}
	requests=$QUEUE_MODE_REQUESTS q_run "$mode" --mode "$mode" --min-accuracy 99
	check "queue ($mode), --capture 256 on Redis: the gates pass (99% of the jobs' work under their request, every exact hop right)" \
		[ $? -eq 0 ]
done
# haproxy in TCP mode between Redis and its clients (--relay haproxy): the
# LPUSH reaches Redis forwarded by haproxy (basis forwarded below the web
# front's call), the job reaches the worker through it; the relay hop and
# the queue hop compose (one message, not two).
# A hop through the relay is exact where the bytes and the worker's
# window decide, as without it (docs/analyzer.md "Through a relay": a
# BRPOP's path through haproxy can come after its thread's next one, so a
# window whose exchanges did not all come is not exact): 98.7-99.5% right,
# 99.5-99.9% of the hops exact, none wrong, in the runs so far.
requests=$QUEUE_MODE_REQUESTS q_run haproxy --relay haproxy --min-accuracy 98
check "queue through haproxy (TCP mode), --capture 256 on both its sides: the gates pass (98% of the jobs' work under their request, every exact hop right)" \
	[ $? -eq 0 ]
relayed() { grep -c '"forwarded"' "$keep/haproxy/found.json" 2>/dev/null; }
check "queue through haproxy: the LPUSHes linked through it by their bytes ($(relayed) forwarded)" \
	[ "$(relayed)" -gt 0 ]
hops=$(grep -o 'hops [0-9]* ([0-9]* exact' "$keep/haproxy.out" | tr -d '(')
check "queue through haproxy: its hops marked exact where the bytes decide ($hops), at least 90%" \
	python3 -c 'import re, sys; h, e = map(int, re.findall(r"[0-9]+", sys.argv[1]))
sys.exit(0 if h and e * 10 >= h * 9 else 1)' "$hops"
# Pub/sub: one session, so that each push is read alone (the front waits
# for both workers' answers before its next request); each job's work is
# under its request once per subscriber, or the request is not right.
requests=${QUEUE_PUBSUB_REQUESTS:-200} q_run pubsub --mode pubsub --sessions 1 --min-accuracy 99
check "queue (pubsub, fanned out to 2 subscribers), --capture 256 on Redis: the gates pass (99% of the jobs' work, each worker's, under their request, every exact hop right)" \
	[ $? -eq 0 ]
# Pub/sub on 4 sessions: the workers fall behind and read two or more
# pushes at once; with the back end's port captured too (--capture-back)
# each later call carries its job's id, which says which push of the read
# it works on (docs/analyzer.md "Queues as hops": a read of several).
requests=${QUEUE_PUBSUB_REQUESTS:-200} q_run pubsub4 --mode pubsub --sessions 4 --capture-back \
	--min-accuracy 99
check "queue (pubsub, 4 sessions: pushes read together), --capture 256 on Redis and the back end: the gates pass (99% of the jobs' work, each worker's, under their request, every exact hop right)" \
	[ $? -eq 0 ]
grep -q '"queued"' "$keep/stream/found.json" 2>/dev/null &&
	python3 - "$keep/stream/found.json" <<'PY'
import json, sys
def walk(c):
    yield c
    for k in c["calls"]:
        yield from walk(k)
n = sum(c["link"].get("exact", False) for r in json.load(open(sys.argv[1]))["requests"]
        for c in walk(r["root"]) if c["link"].get("basis") == "queued")
sys.exit(0 if n > 0 else 1)
PY
check "queue (stream): hops marked exact (the entry's id XADD returned, seen in the delivery)" [ $? -eq 0 ]
# SQLite (docs/sqlite.md): queue_ns on exactly the hops paths --json shows, with their times.
d=$keep/stream
"$VPATH_ANALYZE" sqlite -o "$d/paths.db" "$d"/*.vpr 2>/dev/null &&
	python3 - "$d/found.json" "$d/paths.db" <<'PY'
import json, sqlite3, sys
def walk(c):
    yield c
    for k in c["calls"]:
        yield from walk(k)
want = sorted(c["link"]["queue_ns"] for r in json.load(open(sys.argv[1]))["requests"]
              for c in walk(r["root"]) if c["link"].get("basis") == "queued")
got = sorted(r[0] for r in sqlite3.connect(sys.argv[2]).execute(
    "select queue_ns from calls where queue_ns is not null and link_basis = 'queued'"))
sys.exit(0 if want and got == want else 1)
PY
check "queue (stream): SQLite's queue_ns on the hops paths --json shows, the same times" [ $? -eq 0 ]
# The report's waterfalls draw the hops (report.js: a dashed queue wait, the
# consumer's bars marked); headless Chromium runs the page's script.  The
# three slowest requests are drawn at once, and they can be a run's first
# ones, whose jobs no delivery seen took (no hop): the page is opened at
# the slowest of the report's 20 that has a hop (#request-ID, a deep link).
CHROMIUM=$(command -v chromium || command -v chromium-browser)
with_hop=$(python3 - "$d/found.json" <<'PY'
import json, sys
def walk(c):
    yield c
    for k in c["calls"]:
        yield from walk(k)
rs = sorted(json.load(open(sys.argv[1]))["requests"], key=lambda r: -r["root"]["duration_ns"])
hop = [r["id"] for r in rs[:20] if any(c["link"].get("basis") == "queued" for c in walk(r["root"]))]
print(hop[0] if hop else "")
PY
)
if [ -n "$CHROMIUM" ] && "$VPATH_ANALYZE" report -o "$d/report.html" "$d"/*.vpr 2>/dev/null; then
	profile=$(mktemp -d "$d/profile.XXXXXX")
	timeout -k 5 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --user-data-dir="$profile" \
		--dump-dom "file://$d/report.html${with_hop:+#request-$with_hop}" >"$d/dom.html" 2>/dev/null
	rm -rf "$profile"
	sc=$(grep -o '<div id="selfcheck" data-status="ok">[^<]*' "$d/dom.html")
	echo "# report: ${sc##*>}"
	hops=$(echo "$sc" | grep -o 'hops=[0-9]*' | cut -d= -f2)
	waits=$(grep -o 'class="qwait"' "$d/dom.html" | wc -l)
	check "queue (stream): the report's waterfalls draw the hops ($hops) and the deliveries' queue waits ($waits)" \
		[ "${hops:-0}" -gt 0 -a "$waits" -gt 0 ]
else
	skip "the report's hops" "no chromium, or the report failed"
fi
for run in run pubsub4; do
	d=$keep/$run
	for what in move lose; do
		rc=2
		[ -f "$d/found.json" ] && python3 tests/queue/score.py --truth "$d/truth.jsonl" \
			--jobs "$d/jobs.jsonl" --found "$d/found.json" --web $web --redis $redis \
			--back $back --break $what >/dev/null
		rc=$?
		check "queue ($run): the scorer fails the analysis with one hop or request broken: $what" \
			[ $rc -eq 1 ]
	done
done
exit 0
