#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the relay workload (README.md here): client.py (SESSIONS
# keep-alive connections) -> app.py (a thread per connection, a pool of 8
# psycopg2 connections) -> a relay -> PostgreSQL, each on its own
# network-namespace host with its own vpath-record (--capture 256 on the
# relay's two ports); then vpath-analyze and score.py against the client's
# truth.  The relay: PgBouncer in transaction pooling (2 server
# connections) or session pooling (one server connection per client
# connection), or haproxy in TCP mode (2 threads, one server connection per
# client connection).  Exit status: 0 when the gates pass, 1 when not, 2
# when the run itself failed.  Needs root.
#
#   tests/pgbouncer/run.sh [--relay pgbouncer|haproxy] [--pool-mode transaction|session]
#                      [--requests N] [--sessions S] [--seed X]
#                      [--min-accuracy P] [--shared P] [--keep DIR] [--hash N]
# --pool-mode: PgBouncer's (transaction by default).
# --hash N: the relay's host records --capture-hash N instead of --capture
# 256 (keyed hashes, no bytes: it is linked by them); the app's and the
# database's hosts still capture the bytes, from which the scorer reads the
# statements (the truth), and the check that the relay's recording holds
# no payload record is a gate.
# --shared P: P percent of the requests also run a statement that is the
# same for all (app.py), which its bytes must not link.
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl and
# every log are copied to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/pgbouncer/servers.sh

R_SRC=tests/pgbouncer
R_NET=10.209.0
R_CLIENT_IP=$R_NET.10
R_APP=$R_NET.1:8000
R_RELAY=$R_NET.2:6432
R_DB=$R_NET.3:5432
requests=2000 sessions=8 seed=$((RANDOM)) keep=${KEEP:-} min_accuracy=0 shared=0 hash=
relay=pgbouncer pool_mode=transaction
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--sessions) sessions=$2; shift ;;
	--seed) seed=$2; shift ;;
	--keep) keep=$2; shift ;;
	--min-accuracy) min_accuracy=$2; shift ;;
	--shared) shared=$2; shift ;;
	--relay) relay=$2; shift ;;
	--pool-mode) pool_mode=$2; shift ;;
	--hash) hash=$2; shift ;;
	-h|--help) sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
case $relay/$pool_mode in
pgbouncer/transaction | pgbouncer/session | haproxy/transaction) ;;
*) echo "run.sh: --relay pgbouncer|haproxy, --pool-mode transaction|session (PgBouncer's)" >&2; exit 2 ;;
esac

r_app_start() {
	e2e_spawn app app "$R_APP" "$R_PY" "$R_SRC/app.py" --listen "$R_APP" --pool 8 \
		--shared "$shared" \
		--dsn "host=${R_RELAY%:*} port=${R_RELAY#*:} dbname=vpath user=vpath"
}

r_missing() { relay_missing "$relay"; }
why=$(e2e_servers_unavailable r_missing)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
e2e_hosts_setup client:$R_CLIENT_IP app:${R_APP%:*} relay:${R_RELAY%:*} db:${R_DB%:*} ||
	exit 2
on_exit 'e2e_keep_results "$keep"'
# PostgreSQL's and the relay's files belong to postgres, outside the root-only scratch base.
relay_dir_make || exit 2
what=$relay
[ "$relay" != pgbouncer ] || what="$relay ($pool_mode pooling)"
e2e_log "$what: seed $seed, $requests requests on $sessions sessions, $shared% with a shared statement"
# The relay's two sides: the queries it reads and those it sends on (the
# scorer reads the statements from the same bytes).
rec=(--capture 256 --capture-port "${R_RELAY#*:}" --capture-port "${R_DB#*:}")
declare -A E2E_HOST_ARGS=()
[ -z "$hash" ] ||
	E2E_HOST_ARGS[relay]="--capture-hash $hash --capture-port ${R_RELAY#*:} --capture-port ${R_DB#*:}"
# The servers first (the pools' connections open), then the recorders: the
# client's connections and ordinals are recorded from their start.
relay_postgres_start db "$R_DB" || exit 2
case $relay in
pgbouncer) relay_pgbouncer_start relay "$R_RELAY" "$R_DB" "$pool_mode" ;;
haproxy) relay_haproxy_start relay "$R_RELAY" "$R_DB" ;;
esac || exit 2
r_app_start || exit 2
e2e_recorders_start "${rec[@]}" || exit 2
setsid ip netns exec "$(e2e_ns client)" python3 "$R_SRC/client.py" --target "$R_APP" \
	--sessions "$sessions" --requests "$requests" --seed "$seed" --out "$E2E_DIR/truth.jsonl" \
	>"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" </dev/null &
E2E_CLIENT_PID=$!
e2e_client_wait client.py || exit 2
e2e_log "client: $(cat "$E2E_DIR/client.json")"
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_servers_stop
e2e_analyze || exit 2
if [ -n "$hash" ]; then
	# The relay's recording: hashes, and not one payload record.
	n_hash=$("$VPATH_ANALYZE" dump "$E2E_DIR/relay.vpr" | grep -c '^payload_hash ')
	n_payload=$("$VPATH_ANALYZE" dump "$E2E_DIR/relay.vpr" | grep -c '^payload ')
	e2e_log "relay's recording: $n_hash payload_hash records, $n_payload payload records"
	if [ "$n_payload" != 0 ] || [ "$n_hash" = 0 ]; then
		e2e_log "FAIL: the relay's recording must hold hashes and no payload"
		exit 1
	fi
fi
python3 "$R_SRC/score.py" --truth "$E2E_DIR/truth.jsonl" --found "$E2E_DIR/found.json" \
	--app "$R_APP" --relay "$R_RELAY" --db "$R_DB" --min-accuracy "$min_accuracy" \
	--failures "$E2E_DIR/failures.jsonl"
