# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The servers of the relay workload, started on e2e hosts (tests/e2e/harness.sh:
# e2e_spawn) by run.sh and by tests/bench/relay.sh: PostgreSQL, and in front of
# it PgBouncer or haproxy in TCP mode.  Their files go to R_DIR (owned by
# postgres, who runs them all).  Sourced after tests/e2e/harness.sh.
R_PY=/usr/bin/python3 # Debian's, where python3-psycopg2 lives
R_DIR=

relay_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

# What is missing to run RELAY (pgbouncer, haproxy) in front of PostgreSQL, one a line.
relay_missing() { # relay
	local pg
	pg=$(relay_pg_bin)
	[ -n "$pg" ] && [ -x "$pg/initdb" ] || echo postgresql
	[ "$1" != pgbouncer ] || [ -x /usr/sbin/pgbouncer ] || echo pgbouncer
	[ "$1" != haproxy ] || [ -x /usr/sbin/haproxy ] || echo haproxy
	"$R_PY" -c 'import psycopg2' 2>/dev/null || echo python3-psycopg2
	id postgres >/dev/null 2>&1 || echo "the postgres user"
	command -v setpriv >/dev/null || echo util-linux
}

relay_as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

# R_DIR: a scratch directory postgres owns, removed at exit.
relay_dir_make() {
	R_DIR=$(mktemp -d /tmp/vpath-relay.XXXXXX) || return 1
	on_exit "rm -rf '$R_DIR'"
	chown postgres: "$R_DIR"
}

# PostgreSQL on HOST at ADDR, trusting its /24, with database vpath and
# its table items (1000 rows).
relay_postgres_start() { # host addr
	local host=$1 addr=$2 bin i
	bin=$(relay_pg_bin)
	relay_as_postgres "$bin/initdb" -D "$R_DIR/data" -U vpath --auth=trust -E UTF8 --no-sync \
		>"$E2E_DIR/initdb.log" 2>&1 || { e2e_log "initdb failed"; tail -5 "$E2E_DIR/initdb.log" >&2; return 1; }
	echo "host all all ${addr%.*}.0/24 trust" >>"$R_DIR/data/pg_hba.conf"
	e2e_spawn postgres "$host" "$addr" setpriv --reuid=postgres --regid=postgres --init-groups \
		"$bin/postgres" -D "$R_DIR/data" -c "listen_addresses=${addr%:*}" -c "port=${addr#*:}" \
		-c "unix_socket_directories=$R_DIR" -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off || return 1
	for ((i = 0; i < 300; i++)); do
		relay_as_postgres "$bin/pg_isready" -q -h "$R_DIR" -U vpath -d postgres && break
		sleep 0.1
	done
	relay_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$R_DIR" -U vpath -d postgres \
		-c "CREATE DATABASE vpath" >"$E2E_DIR/psql.log" 2>&1 &&
		relay_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$R_DIR" -U vpath -d vpath \
			-c "CREATE TABLE items (id int PRIMARY KEY, val text, hits int DEFAULT 0);
			    INSERT INTO items (id, val) SELECT i, md5(i::text) FROM generate_series(0, 999) i" \
			>>"$E2E_DIR/psql.log" 2>&1 ||
		{ e2e_log "database setup failed"; tail -5 "$E2E_DIR/psql.log" >&2; return 1; }
}

# PgBouncer on HOST at ADDR in front of DB.  Transaction pooling: 2 server
# connections for however many clients.  Session pooling: a server
# connection for each client connection (8).
relay_pgbouncer_start() { # host addr db transaction|session
	local host=$1 addr=$2 db=$3 mode=$4 size=2
	[ "$mode" = transaction ] || size=8
	echo '"vpath" ""' >"$R_DIR/userlist.txt"
	cat >"$R_DIR/pgbouncer.ini" <<-EOF2
	[databases]
	vpath = host=${db%:*} port=${db#*:} dbname=vpath user=vpath
	[pgbouncer]
	listen_addr = ${addr%:*}
	listen_port = ${addr#*:}
	unix_socket_dir =
	auth_type = trust
	auth_file = $R_DIR/userlist.txt
	pool_mode = $mode
	default_pool_size = $size
	min_pool_size = $size
	max_client_conn = 100
	logfile = $R_DIR/pgbouncer.log
	pidfile = $R_DIR/pgbouncer.pid
	EOF2
	chown postgres: "$R_DIR"/*
	on_exit 'cp "$R_DIR"/pgbouncer.log "$E2E_DIR"/ 2>/dev/null'
	e2e_spawn pgbouncer "$host" "$addr" setpriv --reuid=postgres --regid=postgres \
		--init-groups /usr/sbin/pgbouncer "$R_DIR/pgbouncer.ini"
}

# haproxy's configuration, in TCP mode, listening on ADDR in front of SERVER:
# each client connection spliced to a server connection of its own, on 2
# threads (each connection stays on one; each thread serves many).  Also
# tests/queue/run.sh --relay haproxy's, in front of Redis.
relay_haproxy_cfg() { # addr server
	cat <<-EOF2
	global
	    nbthread 2
	    maxconn 200
	defaults
	    mode tcp
	    timeout connect 5s
	    timeout client 10m
	    timeout server 10m
	frontend relay
	    bind $1
	    default_backend server
	backend server
	    server server $2
	EOF2
}

# haproxy on HOST at ADDR in front of DB.
relay_haproxy_start() { # host addr db
	local host=$1 addr=$2 db=$3
	relay_haproxy_cfg "$addr" "$db" >"$R_DIR/haproxy.cfg"
	chown postgres: "$R_DIR"/*
	e2e_spawn haproxy "$host" "$addr" setpriv --reuid=postgres --regid=postgres \
		--init-groups /usr/sbin/haproxy -db -f "$R_DIR/haproxy.cfg"
}
