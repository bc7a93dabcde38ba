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
# capture cannot be scored).  Then the scorer must fail a copy with a call
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
d=$keep/run
tests/pgbouncer/run.sh --requests "$requests" --seed "$seed" --keep "$d" --min-accuracy 99 \
	>"$keep/run.out" 2>"$keep/run.err"
rc=$?
sed 's/^/# /' "$keep/run.out"
if [ $rc -eq 2 ] && grep -q "missing:" "$keep/run.err"; then
	skip "pgbouncer" "$(grep -o 'missing:.*' "$keep/run.err")"
	exit 0
fi
[ $rc -ne 2 ] || sed 's/^/# /' "$keep/run.err"
check "pgbouncer, --capture 256: the gates pass (99% right, every exact path and link right)" \
	[ $rc -eq 0 ]
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
