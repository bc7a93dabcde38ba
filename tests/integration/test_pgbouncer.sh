#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A threaded service with a pool of 8 connections -> PgBouncer in
# transaction pooling (8 client connections on 2 server connections) ->
# PostgreSQL, 1-4 queries per request, each carrying its request's id, 8
# keep-alive sessions (tests/pgbouncer/README.md).  Recorded with
# --capture 256 on PgBouncer's two ports, the calls PgBouncer makes are
# linked by the bytes they forward: every request found, every path and link
# marked exact right, at least 99% of the paths right (the statements the
# scorer compares are read from the calls' captured bytes, so a run without
# capture cannot be scored).  A second run has 30% of the requests also run
# one statement that is the same for all (two clients' identical queries):
# those calls must not be linked by their bytes, and every path and link
# marked exact stays right.  Then the scorer must fail a copy with a call
# moved or a request lost.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

e2e_require "PgBouncer in transaction pooling"
seed=${VPATH_SEED:-7}
requests=${PGBOUNCER_REQUESTS:-2000}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
keep=$(scratch_dir)
app=10.209.0.1:8000 bouncer=10.209.0.2:6432 db=10.209.0.3:5432
# One run; its name, then run.sh's options.
pb_run() { # name options...
	local name=$1 rc
	shift
	tests/pgbouncer/run.sh --requests "$requests" --seed "$seed" --keep "$keep/$name" "$@" \
		>"$keep/$name.out" 2>"$keep/$name.err"
	rc=$?
	sed 's/^/# /' "$keep/$name.out"
	if [ $rc -eq 2 ] && grep -q "missing:" "$keep/$name.err"; then
		skip "pgbouncer" "$(grep -o 'missing:.*' "$keep/$name.err")"
		exit 0
	fi
	[ $rc -ne 2 ] || sed 's/^/# /' "$keep/$name.err"
	return $rc
}
pb_run run --min-accuracy 99
check "pgbouncer, --capture 256: the gates pass (99% right, every exact path and link right)" \
	[ $? -eq 0 ]
pb_run shared --shared 30
check "pgbouncer, a statement shared by 30% of the requests: linked by its bytes at most on its first run, every exact path and link right" \
	[ $? -eq 0 ]
d=$keep/run
for what in move lose; do
	rc=2
	[ -f "$d/found.json" ] && python3 tests/pgbouncer/score.py --truth "$d/truth.jsonl" \
		--found "$d/found.json" --app $app --pgbouncer $bouncer --db $db --break $what \
		>/dev/null
	rc=$?
	check "pgbouncer: the scorer fails the analysis with one call or request broken: $what" \
		[ $rc -eq 1 ]
done
exit 0
