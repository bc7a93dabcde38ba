#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the real-servers scenario (stack.sh): nginx -> gunicorn app ->
# PostgreSQL + Redis on network-namespace hosts, one vpath-record per host,
# the load client, vpath-analyze on all recordings, and check.py comparing
# the paths with the ground truth from the client, the app and the servers'
# own logs.  Prints TAP lines.  Exit status: 0 when everything matched, 1 when
# not, 2 when the run itself failed.  Needs root.
#
#   tests/realstack/run.sh [--requests N] [--conns N] [--seed N] [--reconnect P]
#                          [--warmup N] [--label TEXT] [--keep DIR] [--wakeups] [--logs N]
# --warmup N: N requests before the recorders start, on the same keep-alive
# connections (a recording that starts on a running system).
# KEEP=DIR in the environment works like --keep: the recordings, found.json,
# truth.jsonl, failures.jsonl and every server's config and log are kept.
# --wakeups (or REALSTACK_WAKEUPS=1): the recorders also record scheduler
# wake-ups (vpath-record --wakeups), so the analyzer's wake-up rule runs.
# --logs N: the recorders also record log writes (vpath-record --logs N); the
# lines attached to requests are counted and checked against the request ids
# they name (loglines.py).
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/realstack/stack.sh

requests=3000 conns=16 warmup=0 seed=$((RANDOM)) label=realstack: keep=${KEEP:-}
record_opts=()
logs=0
[ "${REALSTACK_WAKEUPS:-0}" = 1 ] && record_opts+=(--wakeups)
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--conns) conns=$2; shift ;;
	--seed) seed=$2; shift ;;
	--reconnect) export RS_RECONNECT=$2; shift ;;
	--warmup) warmup=$2; shift ;;
	--label) label=$2; shift ;;
	--keep) keep=$2; shift ;;
	--wakeups) record_opts+=(--wakeups) ;;
	--logs) record_opts+=(--logs "$2"); logs=1; shift ;;
	-h|--help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

why=$(rs_unavailable)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
rs_setup || exit 2
on_exit 'e2e_keep_results "$keep"'
t0=$SECONDS
rs_servers_start || exit 2
e2e_log "servers up in $((SECONDS - t0)) s; seed $seed, $requests requests on $conns connections"
client_args=(--conns "$conns" --requests "$requests" --seed "$seed")
if [ "$warmup" -gt 0 ]; then
	rs_client_start "${client_args[@]}" --warmup "$warmup" --go "$E2E_DIR/go"
	rs_client_wait_warm || exit 2
	e2e_log "$warmup requests before the recording"
	rs_redis_log_reset && e2e_recorders_start "${record_opts[@]}" || exit 2
	rs_background_start
	touch "$E2E_DIR/go"
else
	rs_redis_log_reset && e2e_recorders_start "${record_opts[@]}" || exit 2
	rs_background_start
	rs_client_start "${client_args[@]}"
fi
rs_client_wait || exit 2
rs_background_stop || exit 2
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_log "client: $(cat "$E2E_DIR/client.json")"
rs_logs_collect || { e2e_log "cannot read Redis's slowlog"; exit 2; }
rs_servers_stop
e2e_analyze || exit 2
rs_check --label "$label"
rc=$?
if [ "$logs" = 1 ]; then
	python3 tests/realstack/loglines.py --dir "$E2E_DIR" --label "$label" || { [ $rc -eq 0 ] && rc=1; }
fi
exit $rc
