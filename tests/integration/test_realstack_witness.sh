#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What each call was, on real servers (tests/realstack: nginx -> gunicorn ->
# PostgreSQL + Redis): every host recorded with --capture 256 on the four
# servers' ports; 300 requests, then two HTTP/1.1 requests to nginx in one
# write and three Redis commands in one write (tests/realstack/pipeline.py).
# Every call's label is held against the servers' own logs (nginx's access
# log: request line and status; PostgreSQL's statement log; Redis's command
# log), the share labelled is printed, and each pipeline must come out as one
# exchange per request with its own label.  Then the check must fail on
# results broken in one place each.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/realstack/stack.sh

name="real servers with payload capture: labels against the servers' logs"
why=$(rs_unavailable)
if [ -n "$why" ]; then
	skip "$name" "$why"
	exit 0
fi
seed=${VPATH_SEED:-7}
echo "# seed $seed (set VPATH_SEED to change it)"

run() {
	rs_setup || return 1
	# KEEP=DIR keeps the recordings, found.json and the servers' logs.
	on_exit 'e2e_keep_results "${KEEP:-}"'
	rs_servers_start || return 1
	rs_redis_log_reset && e2e_recorders_start --capture 256 --capture-port 80 \
		--capture-port 8000 --capture-port 5432 --capture-port 6379 || return 1
	rs_client_start --conns 8 --requests 300 --seed "$seed"
	rs_client_wait || return 1
	ip netns exec "$(e2e_ns client)" "$RS_PY" tests/realstack/pipeline.py --web "$RS_WEB" \
		--cache "$RS_CACHE" --out "$E2E_DIR/pipeline.json" || return 1
	e2e_recorders_stop || { e2e_log "a recorder failed"; return 1; }
	rs_logs_collect || { e2e_log "cannot read Redis's slowlog"; return 1; }
	rs_servers_stop
	e2e_analyze
}

if ! run; then
	not_ok "$name: the run itself failed (see the lines above)"
	exit 0
fi
python3 tests/realstack/check.py witness --dir "$E2E_DIR" --topology "$E2E_DIR/topology.json" \
	--pipelines "$E2E_DIR/pipeline.json"
for what in witness-label witness-pipeline; do
	broken=$(scratch_dir)
	cp -r "$E2E_DIR"/. "$broken"/
	rc=2
	if python3 tests/realstack/check.py break --dir "$broken" --what "$what"; then
		python3 tests/realstack/check.py witness --dir "$broken" \
			--topology "$broken/topology.json" --pipelines "$broken/pipeline.json" \
			>"$broken/out" 2>&1
		rc=$?
	fi
	check "$name: the check fails when one thing is broken: $what" [ $rc -eq 1 ]
done
exit 0
