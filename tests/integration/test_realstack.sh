#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Real servers from Debian's packages (tests/realstack): a client with 16
# keep-alive connections -> nginx (event loops, upstream keep-alive) ->
# gunicorn threads (app.py) -> PostgreSQL (pool opened before the recording,
# some connections opened with SCRAM authentication inside requests) and
# Redis (one event loop), each on its own network-namespace host and
# recorder; a background thread of the app queries both every 20 ms outside
# every request.  3000 requests; every path vpath-analyze finds must be exactly
# the truth that the client, the app and the servers' own logs give.  Then
# the checker must fail on results broken in one place each.  A second run
# starts the recorders on a running stack: 1000 requests first, on the same
# keep-alive connections, then 1500 recorded ones, with scheduler wake-ups
# recorded (vpath-record --wakeups) and log writes (--logs 256, issue 26):
# the wake-up rule must not touch gunicorn, whose threads serve requests and
# call themselves, and no line of nginx's access log or PostgreSQL's
# statement log is marked exact on another request than the one it names
# (tests/realstack/loglines.py).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/realstack/stack.sh

name="real servers: nginx -> gunicorn -> PostgreSQL + Redis"
why=$(rs_unavailable)
if [ -n "$why" ]; then
	skip "$name" "$why"
	exit 0
fi
seed=${VPATH_SEED:-7}
echo "# seed $seed (set VPATH_SEED to change it)"
keep=$(scratch_dir)/run
RS_BACKGROUND=0.02 tests/realstack/run.sh --requests 3000 --conns 16 --seed "$seed" --keep "$keep"
rc=$?
if [ $rc -eq 2 ]; then
	not_ok "realstack: the run itself failed (see the lines above)"
	exit 0
fi
for what in found-drop found-move pg-log redis-log nginx-log; do
	broken=$(scratch_dir)
	cp -r "$keep"/. "$broken"/
	rc=2
	if python3 tests/realstack/check.py break --dir "$broken" --what "$what"; then
		python3 tests/realstack/check.py compare --dir "$broken" \
			--topology "$broken/topology.json" >"$broken/out" 2>&1
		rc=$?
	fi
	# 1 is "a comparison failed"; 2 would be the checker itself failing
	check "realstack: the check fails when one thing is broken: $what" [ $rc -eq 1 ]
done
tests/realstack/run.sh --requests 1500 --warmup 1000 --conns 16 --seed "$((seed + 1))" \
	--wakeups --logs 256 --label "realstack warm, wake-ups, logs:"
if [ $? -eq 2 ]; then
	not_ok "realstack warm, wake-ups, logs: the run itself failed (see the lines above)"
fi
exit 0
