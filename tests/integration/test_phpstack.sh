#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The PHP stack (issue 17, tests/phpstack): a client with TLS 1.3 keep-alive
# connections -> nginx (one event loop) -> FastCGI on kept-alive connections
# -> PHP-FPM (pm = static) -> a new MariaDB connection per request over TLS
# (0..5 queries, then COM_QUIT), each server on its own network-namespace
# host and recorder.  Issue 17's bars: every request found and no handshake
# counted as a request; every path right one request at a time (300
# requests) and at least 99% with 8 concurrent sessions (1500 requests);
# every path marked exact right; every request complete when no record was
# lost.  Then the checker must pass a perfect analyzer's paths (made from the
# truth) and fail on them, and on the truth, broken in one place each.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/phpstack/stack.sh

name="PHP stack: nginx -> PHP-FPM -> MariaDB, TLS"
why=$(ps_unavailable)
if [ -n "$why" ]; then
	skip "$name" "$why"
	exit 0
fi
seed=${VPATH_SEED:-17}
echo "# seed $seed (set VPATH_SEED to change it)"
keep=$(scratch_dir)/run
tests/phpstack/run.sh --requests 300 --conns 1 --seed "$seed" --keep "$keep" \
	--label "phpstack one at a time:"
rc=$?
if [ $rc -eq 2 ]; then
	not_ok "phpstack one at a time: the run itself failed (see the lines above)"
	exit 0
elif [ $rc -ne 0 ]; then
	e2e_analyzer_notes "$keep"
fi
tests/phpstack/run.sh --requests 1500 --conns 8 --seed "$((seed + 1))" \
	--label "phpstack 8 sessions:"
if [ $? -eq 2 ]; then
	not_ok "phpstack 8 sessions: the run itself failed (see the lines above)"
fi

# compare DIR: check.py's exit status on DIR, its output in DIR/out
compare() {
	python3 tests/phpstack/check.py compare --dir "$1" --topology "$1/topology.json" \
		>"$1/out" 2>&1
}
perfect=$(scratch_dir)
cp -r "$keep"/. "$perfect"/
rc=2
if python3 tests/phpstack/check.py fake-found --dir "$perfect"; then
	compare "$perfect"
	rc=$?
fi
check "phpstack: the check passes a perfect analyzer's paths" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/#   /' "$perfect/out"
for what in found-drop found-move found-swap found-handshake found-quit found-exact \
	mariadb-log nginx-log; do
	broken=$(scratch_dir)
	cp -r "$perfect"/. "$broken"/
	rc=2
	if python3 tests/phpstack/check.py break --dir "$broken" --what "$what"; then
		compare "$broken"
		rc=$?
	fi
	# 1 is "a comparison failed"; 2 would be the checker itself failing
	check "phpstack: the check fails when one thing is broken: $what" [ $rc -eq 1 ]
done
exit 0
