#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of a log-lines workload on a real server (README.md here): the
# server on its own network-namespace host, the client on another, one
# vpath-record --logs per host (and --capture on the server's port, for each
# request's id), then vpath-analyze paths --json and score.py, whose truth
# is each line's own request id.  Prints TAP lines and figures.  Exit
# status: 0 when the gates pass, 1 when not, 2 when the run itself failed
# (with "missing: ..." when a server is not installed).  Needs root.
#
#   tests/logs/servers.sh nginx|postgres|node [--requests N] [--sessions S]
#                         [--seed X] [--keep DIR]
# nginx: one event-loop worker serving a static file or a 404 (an access
#   line, and an error line for the 404), its logs reopened (SIGUSR1) every
#   0.05 s: the worker's "reopening logs" lines are housekeeping;
# postgres: log_statement=all through the logging collector (each backend
#   writes to it through a pipe), one statement per request carrying its id
#   in a comment, autovacuum logging every table it vacuums (housekeeping);
# node: a Node.js HTTP server writing console.log lines to stdout, a pipe,
#   two per request (the second after a timer), and a housekeeping line
#   every 5 ms.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

LW_SRC=tests/logs
LW_NET=10.213.0
LW_SRV=$LW_NET.1
LW_PY=/usr/bin/python3 # Debian's, where python3-psycopg2 lives
kind=${1:-}
shift
requests=600 sessions=4 seed=1 keep=${KEEP:-}
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--sessions) sessions=$2; shift ;;
	--seed) seed=$2; shift ;;
	--keep) keep=$2; shift ;;
	*) echo "servers.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

lw_pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

lw_missing() {
	case $kind in
	nginx) [ -x /usr/sbin/nginx ] || echo nginx ;;
	node) command -v node >/dev/null || echo nodejs ;;
	postgres)
		[ -x "$(lw_pg_bin)/initdb" ] || echo postgresql
		"$LW_PY" -c 'import psycopg2' 2>/dev/null || echo python3-psycopg2
		id postgres >/dev/null 2>&1 || echo "the postgres user"
		command -v setpriv >/dev/null || echo util-linux
		;;
	esac
}

# Starts the server on host srv in its own process group; returns once it listens on PORT.
lw_spawn() { # port command...
	local port=$1 i
	shift
	setsid ip netns exec "$(e2e_ns srv)" "$@" >"$E2E_DIR/server.out" 2>&1 </dev/null &
	E2E_SERVER_PIDS+=($!)
	for ((i = 0; i < 300; i++)); do
		ip netns exec "$(e2e_ns srv)" ss -Hltn "src $LW_SRV:$port" 2>/dev/null | grep -q . && return 0
		kill -0 "${E2E_SERVER_PIDS[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	e2e_log "$kind is not listening on $LW_SRV:$port:"
	tail -20 "$E2E_DIR/server.out" | sed 's/^/#   /' >&2
	return 1
}

lw_nginx_start() {
	local d=$E2E_DIR/nginx
	mkdir -p "$d/www"
	echo "a static file" >"$d/www/static.txt"
	cat >"$d/nginx.conf" <<-EOF
	worker_processes 1;
	user root root;
	pid $d/nginx.pid;
	error_log $d/error.log notice;
	events { worker_connections 1024; }
	http {
		log_format rid '\$remote_addr:\$remote_port \$status "\$request"';
		access_log $d/access.log rid;
		client_body_temp_path $d/body;
		proxy_temp_path $d/proxy;
		fastcgi_temp_path $d/fastcgi;
		uwsgi_temp_path $d/uwsgi;
		scgi_temp_path $d/scgi;
		keepalive_requests 100000;
		keepalive_timeout 300s;
		server {
			listen $LW_SRV:80;
			root $d/www;
		}
	}
	EOF
	lw_spawn 80 /usr/sbin/nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" -g "daemon off;"
	LW_PORT=80
	# A 404 writes an error line (naming the file, which names the id) before its access line.
	LW_MIX=(--mix "/static.txt?rid=%d:1,/m/rid=%d:2")
}

# Housekeeping: the worker reopens its logs on the master's signal, and says so.
lw_nginx_housekeeping() {
	while kill -0 "$1" 2>/dev/null; do
		kill -USR1 "$(cat "$E2E_DIR/nginx/nginx.pid")" 2>/dev/null
		sleep 0.05
	done
}

lw_node_start() {
	# stdout is a pipe: the shell's, to cat, which writes the file.
	lw_spawn 8080 sh -c "exec node '$PWD/$LW_SRC/service.js' $LW_SRV 8080 | cat >'$E2E_DIR/node.log'"
	LW_PORT=8080
	LW_MIX=(--mix "/r?rid=%d:2")
}

lw_as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

lw_postgres_start() {
	local bin d i
	bin=$(lw_pg_bin)
	# PostgreSQL's data belongs to postgres, outside the root-only scratch base.
	d=$(mktemp -d /tmp/vpath-pg.XXXXXX) || return 1
	on_exit "rm -rf '$d'"
	chown postgres: "$d"
	lw_as_postgres "$bin/initdb" -D "$d/data" -U vpath --auth=trust -E UTF8 --no-sync \
		>"$E2E_DIR/initdb.log" 2>&1 || { e2e_log "initdb failed"; tail -5 "$E2E_DIR/initdb.log" >&2; return 1; }
	echo "host all all $LW_NET.0/24 trust" >>"$d/data/pg_hba.conf"
	lw_spawn 5432 setpriv --reuid=postgres --regid=postgres --init-groups \
		"$bin/postgres" -D "$d/data" -c "listen_addresses=$LW_SRV" -c port=5432 \
		-c "unix_socket_directories=$d" -c fsync=off -c synchronous_commit=off \
		-c full_page_writes=off -c logging_collector=on -c "log_directory=$d/log" \
		-c log_filename=postgres.log -c log_statement=all -c "log_line_prefix=%m [%p] " \
		-c autovacuum_naptime=1 -c log_autovacuum_min_duration=0 \
		-c autovacuum_vacuum_threshold=20 -c autovacuum_analyze_threshold=20 || return 1
	for ((i = 0; i < 300; i++)); do
		lw_as_postgres "$bin/pg_isready" -q -h "$d" -U vpath -d postgres && break
		sleep 0.1
	done
	lw_as_postgres "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$d" -U vpath -d postgres \
		-c "CREATE TABLE items (id int PRIMARY KEY, val text, hits int DEFAULT 0);
		    INSERT INTO items (id, val) SELECT i, md5(i::text) FROM generate_series(0, 99) i" \
		>"$E2E_DIR/psql.log" 2>&1 ||
		{ e2e_log "database setup failed"; tail -5 "$E2E_DIR/psql.log" >&2; return 1; }
	LW_PGLOG=$d/log/postgres.log
	LW_PORT=5432
	LW_MIX=(--postgres)
}

lw_client() {
	ip netns exec "$(e2e_ns client)" "$LW_PY" "$LW_SRC/client.py" "$LW_PORT" "$requests" \
		"$sessions" "$seed" "$E2E_DIR/truth.jsonl" --host "$LW_SRV" "${LW_MIX[@]}"
}

case $kind in
nginx | postgres | node) ;;
*) echo "servers.sh: nginx, postgres or node, not '$kind'" >&2; exit 2 ;;
esac
why=$(e2e_servers_unavailable lw_missing)
if [ -n "$why" ]; then
	echo "servers.sh: $why" >&2
	exit 2
fi
e2e_hosts_setup client:$LW_NET.10 srv:$LW_SRV || exit 2
on_exit 'e2e_keep_results "$keep"'
on_exit e2e_servers_stop
"lw_${kind}_start" || exit 2
e2e_recorders_start --logs 200 --capture 64 --capture-port "$LW_PORT" || exit 2
t0=$SECONDS
if [ "$kind" = nginx ]; then
	lw_client &
	client=$!
	lw_nginx_housekeeping $client
	wait $client
else
	lw_client
fi
check "$kind logs: client done ($requests requests in $((SECONDS - t0)) s)" test $? -eq 0
sleep 0.3
e2e_recorders_stop
check "$kind logs: recorders stopped cleanly" test $? -eq 0
e2e_servers_stop
[ -z "${LW_PGLOG:-}" ] || cp "$LW_PGLOG" "$E2E_DIR/"
e2e_analyze || exit 2
# An event loop's lines are inferred like its calls: the share is printed, not gated.
case $kind in
nginx) score=(--min-own 0 --event-loop --written "$E2E_DIR/nginx/error.log,$E2E_DIR/nginx/access.log") ;;
node) score=(--min-own 0 --event-loop --written "$E2E_DIR/node.log") ;;
postgres) score=(--min-own 99 --written "$E2E_DIR/${LW_PGLOG##*/}") ;;
esac
"$LW_PY" "$LW_SRC/score.py" "$E2E_DIR/truth.jsonl" "$E2E_DIR/found.json" --root-rid 'rid=(\d+)' \
	--label "$kind logs" "${score[@]}"
