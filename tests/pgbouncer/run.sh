#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the PgBouncer workload (README.md here): client.py (SESSIONS
# keep-alive connections) -> app.py (a thread per connection, a pool of 8
# psycopg2 connections) -> PgBouncer in transaction pooling (2 server
# connections) -> PostgreSQL, each on its own network-namespace host with
# its own vpath-record (--capture 256 on PgBouncer's two ports); then
# vpath-analyze and score.py against the client's truth.  Exit status: 0
# when the gates pass, 1 when not, 2 when the run itself failed.  Needs root.
#
#   tests/pgbouncer/run.sh [--requests N] [--sessions S] [--seed X]
#                          [--min-accuracy P] [--shared P] [--keep DIR]
# --shared P: P percent of the requests also run a statement that is the
# same for all (app.py), which its bytes must not link.
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl and
# every log are copied to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

PB_SRC=tests/pgbouncer
PB_NET=10.209.0
PB_CLIENT_IP=$PB_NET.10
PB_APP=$PB_NET.1:8000
PB_BOUNCER=$PB_NET.2:6432
PB_DB=$PB_NET.3:5432
PB_DIR=
PB_PY=/usr/bin/python3 # Debian's, where python3-psycopg2 lives
requests=2000 sessions=8 seed=$((RANDOM)) keep=${KEEP:-} min_accuracy=0 shared=0
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--sessions) sessions=$2; shift ;;
	--seed) seed=$2; shift ;;
	--keep) keep=$2; shift ;;
	--min-accuracy) min_accuracy=$2; shift ;;
	--shared) shared=$2; shift ;;
	-h|--help) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

pb_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

pb_missing() {
	local pg
	pg=$(pb_pg_bin)
	[ -n "$pg" ] && [ -x "$pg/initdb" ] || echo postgresql
	[ -x /usr/sbin/pgbouncer ] || echo pgbouncer
	"$PB_PY" -c 'import psycopg2' 2>/dev/null || echo python3-psycopg2
	id postgres >/dev/null 2>&1 || echo "the postgres user"
	command -v setpriv >/dev/null || echo util-linux
}

pb_as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# Starts NAME on HOST in its own process group; returns once it listens on ADDR.
pb_spawn() { # name host addr command...
	local name=$1 host=$2 addr=$3 i
	shift 3
	setsid ip netns exec "$(e2e_ns "$host")" "$@" >"$E2E_DIR/$name.log" 2>&1 </dev/null &
	E2E_SERVER_PIDS+=($!)
	for ((i = 0; i < 300; i++)); do
		ip netns exec "$(e2e_ns "$host")" ss -Hltn "src $addr" 2>/dev/null | grep -q . && return 0
		kill -0 "${E2E_SERVER_PIDS[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	e2e_log "$name is not listening on $addr:"
	tail -20 "$E2E_DIR/$name.log" | sed 's/^/#   /' >&2
	return 1
}

pb_postgres_start() {
	local bin i
	bin=$(pb_pg_bin)
	pb_as_postgres "$bin/initdb" -D "$PB_DIR/data" -U vpath --auth=trust -E UTF8 --no-sync \
		>"$E2E_DIR/initdb.log" 2>&1 || { e2e_log "initdb failed"; tail -5 "$E2E_DIR/initdb.log" >&2; return 1; }
	echo "host all all $PB_NET.0/24 trust" >>"$PB_DIR/data/pg_hba.conf"
	pb_spawn postgres db "$PB_DB" setpriv --reuid=postgres --regid=postgres --init-groups \
		"$bin/postgres" -D "$PB_DIR/data" -c "listen_addresses=${PB_DB%:*}" -c "port=${PB_DB#*:}" \
		-c "unix_socket_directories=$PB_DIR" -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off || return 1
	for ((i = 0; i < 300; i++)); do
		pb_as_postgres "$bin/pg_isready" -q -h "$PB_DIR" -U vpath -d postgres && break
		sleep 0.1
	done
	pb_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$PB_DIR" -U vpath -d postgres \
		-c "CREATE DATABASE vpath" >"$E2E_DIR/psql.log" 2>&1 &&
		pb_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$PB_DIR" -U vpath -d vpath \
			-c "CREATE TABLE items (id int PRIMARY KEY, val text, hits int DEFAULT 0);
			    INSERT INTO items (id, val) SELECT i, md5(i::text) FROM generate_series(0, 999) i" \
			>>"$E2E_DIR/psql.log" 2>&1 ||
		{ e2e_log "database setup failed"; tail -5 "$E2E_DIR/psql.log" >&2; return 1; }
}

# Transaction pooling, 2 server connections for however many clients.
pb_bouncer_start() {
	echo '"vpath" ""' >"$PB_DIR/userlist.txt"
	cat >"$PB_DIR/pgbouncer.ini" <<-EOF2
	[databases]
	vpath = host=${PB_DB%:*} port=${PB_DB#*:} dbname=vpath user=vpath
	[pgbouncer]
	listen_addr = ${PB_BOUNCER%:*}
	listen_port = ${PB_BOUNCER#*:}
	unix_socket_dir =
	auth_type = trust
	auth_file = $PB_DIR/userlist.txt
	pool_mode = transaction
	default_pool_size = 2
	min_pool_size = 2
	max_client_conn = 100
	logfile = $PB_DIR/pgbouncer.log
	pidfile = $PB_DIR/pgbouncer.pid
	EOF2
	chown postgres: "$PB_DIR"/*
	pb_spawn pgbouncer pgbouncer "$PB_BOUNCER" setpriv --reuid=postgres --regid=postgres \
		--init-groups /usr/sbin/pgbouncer "$PB_DIR/pgbouncer.ini"
}

pb_app_start() {
	pb_spawn app app "$PB_APP" "$PB_PY" "$PB_SRC/app.py" --listen "$PB_APP" --pool 8 \
		--shared "$shared" \
		--dsn "host=${PB_BOUNCER%:*} port=${PB_BOUNCER#*:} dbname=vpath user=vpath"
}

why=$(e2e_servers_unavailable pb_missing)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
e2e_hosts_setup client:$PB_CLIENT_IP app:${PB_APP%:*} pgbouncer:${PB_BOUNCER%:*} db:${PB_DB%:*} ||
	exit 2
on_exit 'e2e_keep_results "$keep"'
# PostgreSQL's and PgBouncer's files belong to postgres, outside the root-only scratch base.
PB_DIR=$(mktemp -d /tmp/vpath-pgb.XXXXXX) || exit 2
on_exit "rm -rf '$PB_DIR'"
on_exit 'cp "$PB_DIR"/pgbouncer.log "$E2E_DIR"/ 2>/dev/null'
chown postgres: "$PB_DIR"
e2e_log "pgbouncer: seed $seed, $requests requests on $sessions sessions, $shared% with a shared statement"
# PgBouncer's two sides: the queries it reads and those it sends on (the
# scorer reads the statements from the same bytes).
rec=(--capture 256 --capture-port "${PB_BOUNCER#*:}" --capture-port "${PB_DB#*:}")
# The servers first (the pools' connections open), then the recorders: the
# client's connections and ordinals are recorded from their start.
pb_postgres_start && pb_bouncer_start && pb_app_start || exit 2
e2e_recorders_start "${rec[@]}" || exit 2
setsid ip netns exec "$(e2e_ns client)" python3 "$PB_SRC/client.py" --target "$PB_APP" \
	--sessions "$sessions" --requests "$requests" --seed "$seed" --out "$E2E_DIR/truth.jsonl" \
	>"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" </dev/null &
E2E_CLIENT_PID=$!
e2e_client_wait client.py || exit 2
e2e_log "client: $(cat "$E2E_DIR/client.json")"
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_servers_stop
e2e_analyze || exit 2
python3 "$PB_SRC/score.py" --truth "$E2E_DIR/truth.jsonl" --found "$E2E_DIR/found.json" \
	--app "$PB_APP" --pgbouncer "$PB_BOUNCER" --db "$PB_DB" --min-accuracy "$min_accuracy" \
	--failures "$E2E_DIR/failures.jsonl"
