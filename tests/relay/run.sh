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
#   tests/relay/run.sh [--relay pgbouncer|haproxy] [--pool-mode transaction|session]
#                      [--requests N] [--sessions S] [--seed X]
#                      [--min-accuracy P] [--shared P] [--keep DIR]
# --pool-mode: PgBouncer's (transaction by default).
# --shared P: P percent of the requests also run a statement that is the
# same for all (app.py), which its bytes must not link.
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl and
# every log are copied to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

R_SRC=tests/relay
R_NET=10.209.0
R_CLIENT_IP=$R_NET.10
R_APP=$R_NET.1:8000
R_RELAY=$R_NET.2:6432
R_DB=$R_NET.3:5432
R_DIR=
R_PY=/usr/bin/python3 # Debian's, where python3-psycopg2 lives
requests=2000 sessions=8 seed=$((RANDOM)) keep=${KEEP:-} min_accuracy=0 shared=0
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
	-h|--help) sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
case $relay/$pool_mode in
pgbouncer/transaction | pgbouncer/session | haproxy/transaction) ;;
*) echo "run.sh: --relay pgbouncer|haproxy, --pool-mode transaction|session (PgBouncer's)" >&2; exit 2 ;;
esac

r_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

r_missing() {
	local pg
	pg=$(r_pg_bin)
	[ -n "$pg" ] && [ -x "$pg/initdb" ] || echo postgresql
	[ "$relay" != pgbouncer ] || [ -x /usr/sbin/pgbouncer ] || echo pgbouncer
	[ "$relay" != haproxy ] || [ -x /usr/sbin/haproxy ] || echo haproxy
	"$R_PY" -c 'import psycopg2' 2>/dev/null || echo python3-psycopg2
	id postgres >/dev/null 2>&1 || echo "the postgres user"
	command -v setpriv >/dev/null || echo util-linux
}

r_as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

r_postgres_start() {
	local bin i
	bin=$(r_pg_bin)
	r_as_postgres "$bin/initdb" -D "$R_DIR/data" -U vpath --auth=trust -E UTF8 --no-sync \
		>"$E2E_DIR/initdb.log" 2>&1 || { e2e_log "initdb failed"; tail -5 "$E2E_DIR/initdb.log" >&2; return 1; }
	echo "host all all $R_NET.0/24 trust" >>"$R_DIR/data/pg_hba.conf"
	e2e_spawn postgres db "$R_DB" setpriv --reuid=postgres --regid=postgres --init-groups \
		"$bin/postgres" -D "$R_DIR/data" -c "listen_addresses=${R_DB%:*}" -c "port=${R_DB#*:}" \
		-c "unix_socket_directories=$R_DIR" -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off || return 1
	for ((i = 0; i < 300; i++)); do
		r_as_postgres "$bin/pg_isready" -q -h "$R_DIR" -U vpath -d postgres && break
		sleep 0.1
	done
	r_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$R_DIR" -U vpath -d postgres \
		-c "CREATE DATABASE vpath" >"$E2E_DIR/psql.log" 2>&1 &&
		r_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$R_DIR" -U vpath -d vpath \
			-c "CREATE TABLE items (id int PRIMARY KEY, val text, hits int DEFAULT 0);
			    INSERT INTO items (id, val) SELECT i, md5(i::text) FROM generate_series(0, 999) i" \
			>>"$E2E_DIR/psql.log" 2>&1 ||
		{ e2e_log "database setup failed"; tail -5 "$E2E_DIR/psql.log" >&2; return 1; }
}

# Transaction pooling: 2 server connections for however many clients.
# Session pooling: a server connection for each client connection (the app's 8).
r_pgbouncer_start() {
	local size=2
	[ "$pool_mode" = transaction ] || size=8
	echo '"vpath" ""' >"$R_DIR/userlist.txt"
	cat >"$R_DIR/pgbouncer.ini" <<-EOF2
	[databases]
	vpath = host=${R_DB%:*} port=${R_DB#*:} dbname=vpath user=vpath
	[pgbouncer]
	listen_addr = ${R_RELAY%:*}
	listen_port = ${R_RELAY#*:}
	unix_socket_dir =
	auth_type = trust
	auth_file = $R_DIR/userlist.txt
	pool_mode = $pool_mode
	default_pool_size = $size
	min_pool_size = $size
	max_client_conn = 100
	logfile = $R_DIR/pgbouncer.log
	pidfile = $R_DIR/pgbouncer.pid
	EOF2
	chown postgres: "$R_DIR"/*
	e2e_spawn pgbouncer relay "$R_RELAY" setpriv --reuid=postgres --regid=postgres \
		--init-groups /usr/sbin/pgbouncer "$R_DIR/pgbouncer.ini"
}

# TCP mode: each client connection spliced to a server connection of its
# own, on 2 threads (each connection stays on one; each thread serves many).
r_haproxy_start() {
	cat >"$R_DIR/haproxy.cfg" <<-EOF2
	global
	    nbthread 2
	    maxconn 200
	defaults
	    mode tcp
	    timeout connect 5s
	    timeout client 10m
	    timeout server 10m
	frontend pg
	    bind $R_RELAY
	    default_backend db
	backend db
	    server db $R_DB
	EOF2
	chown postgres: "$R_DIR"/*
	e2e_spawn haproxy relay "$R_RELAY" setpriv --reuid=postgres --regid=postgres \
		--init-groups /usr/sbin/haproxy -db -f "$R_DIR/haproxy.cfg"
}

r_app_start() {
	e2e_spawn app app "$R_APP" "$R_PY" "$R_SRC/app.py" --listen "$R_APP" --pool 8 \
		--shared "$shared" \
		--dsn "host=${R_RELAY%:*} port=${R_RELAY#*:} dbname=vpath user=vpath"
}

why=$(e2e_servers_unavailable r_missing)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
e2e_hosts_setup client:$R_CLIENT_IP app:${R_APP%:*} relay:${R_RELAY%:*} db:${R_DB%:*} ||
	exit 2
on_exit 'e2e_keep_results "$keep"'
# PostgreSQL's and the relay's files belong to postgres, outside the root-only scratch base.
R_DIR=$(mktemp -d /tmp/vpath-relay.XXXXXX) || exit 2
on_exit "rm -rf '$R_DIR'"
on_exit 'cp "$R_DIR"/pgbouncer.log "$E2E_DIR"/ 2>/dev/null'
chown postgres: "$R_DIR"
what=$relay
[ "$relay" != pgbouncer ] || what="$relay ($pool_mode pooling)"
e2e_log "$what: seed $seed, $requests requests on $sessions sessions, $shared% with a shared statement"
# The relay's two sides: the queries it reads and those it sends on (the
# scorer reads the statements from the same bytes).
rec=(--capture 256 --capture-port "${R_RELAY#*:}" --capture-port "${R_DB#*:}")
# The servers first (the pools' connections open), then the recorders: the
# client's connections and ordinals are recorded from their start.
r_postgres_start && "r_${relay}_start" && r_app_start || exit 2
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
python3 "$R_SRC/score.py" --truth "$E2E_DIR/truth.jsonl" --found "$E2E_DIR/found.json" \
	--app "$R_APP" --relay "$R_RELAY" --db "$R_DB" --min-accuracy "$min_accuracy" \
	--failures "$E2E_DIR/failures.jsonl"
