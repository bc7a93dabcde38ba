# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The real-servers scenario, sourced by its run script, integration test and
# benchmark (after tests/lib.sh and tests/e2e/harness.sh, whose hosts,
# recorders and cleanup it reuses).  Unmodified servers from Debian's
# packages, each on its own network-namespace host:
#
#   client 10.201.0.10 --HTTP/1.1 keep-alive--> web 10.201.0.1:80 nginx (2 event-loop workers)
#     --upstream keep-alive--> app 10.201.0.2:8000 gunicorn gthread (app.py, 8 threads)
#       --pool--> db 10.201.0.3:5432 PostgreSQL (scram-sha-256, log_statement=all)
#       --pool--> cache 10.201.0.4:6379 Redis (one event loop, every command in its slowlog)
#
#   rs_unavailable            why the scenario cannot run here (after trying to install)
#   rs_setup                  hosts; scratch dir in $E2E_DIR
#   rs_servers_start          PostgreSQL, Redis, the app (pools open), nginx
#   rs_redis_log_reset        right before the recorders start
#   rs_background_start/stop  the app's background calls (RS_BACKGROUND)
#   rs_client_start ARGS...   client.py; its record in $E2E_DIR/client.jsonl
#   rs_client_wait_warm       (--warmup) until the client has warmed the stack up
#   rs_client_wait            until the client is done
#   rs_logs_collect           Redis's slowlog into $E2E_DIR/redis-slowlog.json
#   rs_servers_stop
#   rs_check ARGS...          check.py: ground truth vs. $E2E_DIR/found.json
# Knobs (environment): RS_THREADS (gunicorn threads, 8), RS_PG_POOL (8),
# RS_REDIS_POOL (4), RS_RECONNECT (0.02), RS_NGINX_WORKERS (2), RS_BACKGROUND
# (seconds between the app's background calls, 0: no background thread).
# Servers' config, data and logs live in the scratch dir; nothing under /etc
# is touched, and everything is stopped and removed on any exit.

RS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RS_PY=/usr/bin/python3 # Debian's, where python3-psycopg2/-redis live
RS_NET=10.201.0
RS_CLIENT=$RS_NET.10:0
RS_WEB=$RS_NET.1:80
RS_APP=$RS_NET.2:8000
RS_DB=$RS_NET.3:5432
RS_CACHE=$RS_NET.4:6379
RS_PG_PASSWORD=vpath-test
RS_PG_DIR=
RS_PG_BIN=
declare -A RS_PID=()

_rs_pg_bin() {
	ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

_rs_missing() {
	local pg
	pg=$(_rs_pg_bin)
	[ -n "$pg" ] && [ -x "$pg/initdb" ] || echo postgresql
	command -v redis-server >/dev/null || echo redis-server
	command -v redis-cli >/dev/null || echo redis-tools
	[ -x /usr/sbin/nginx ] || echo nginx
	[ -x /usr/bin/gunicorn ] || echo gunicorn
	"$RS_PY" -c 'import psycopg2' 2>/dev/null || echo python3-psycopg2
	"$RS_PY" -c 'import redis' 2>/dev/null || echo python3-redis
	id postgres >/dev/null 2>&1 || echo "the postgres user"
	command -v setpriv >/dev/null || echo util-linux
}

# Why the scenario cannot run here (after trying to install), or nothing.
rs_unavailable() {
	e2e_servers_unavailable _rs_missing
}

rs_setup() {
	local h
	E2E_DIR=$(scratch_dir)
	on_exit _e2e_teardown
	# PostgreSQL's data belongs to postgres, outside the root-only scratch base.
	RS_PG_DIR=$(mktemp -d /tmp/vpath-pg.XXXXXX) || return 1
	on_exit "rm -rf '$RS_PG_DIR'"
	ip netns add "$E2E_BRIDGE" || return 1
	E2E_NETNS_MADE+=("$E2E_BRIDGE")
	ip -n "$E2E_BRIDGE" link add br0 type bridge &&
		ip -n "$E2E_BRIDGE" link set br0 up || return 1
	for h in client:$RS_CLIENT web:$RS_WEB app:$RS_APP db:$RS_DB cache:$RS_CACHE; do
		_e2e_add_host "${h%%:*}" "$(echo "$h" | cut -d: -f2)" || return 1
	done
	# Stop the servers before the harness kills what is left in the namespaces.
	on_exit rs_servers_stop
	cat >"$E2E_DIR/topology.json" <<-EOF
	[{"name": "nginx", "addr": "$RS_WEB", "model": "epoll"},
	 {"name": "app", "addr": "$RS_APP", "model": "thread"},
	 {"name": "postgres", "addr": "$RS_DB", "model": "thread"},
	 {"name": "redis", "addr": "$RS_CACHE", "model": "epoll"}]
	EOF
}

# Starts NAME on HOST in the background, in its own process group.
_rs_spawn() { # name host command...
	local name=$1 host=$2
	shift 2
	setsid ip netns exec "$(e2e_ns "$host")" "$@" >"$E2E_DIR/$name.log" 2>&1 </dev/null &
	RS_PID[$name]=$!
	E2E_SERVER_PIDS+=($!)
}

# Waits until HOST listens on ADDR (ip:port) while NAME lives.
_rs_wait_listen() { # name host addr
	local i
	for ((i = 0; i < 300; i++)); do
		ip netns exec "$(e2e_ns "$2")" ss -Hltn "src $3" 2>/dev/null | grep -q . && return 0
		if ! kill -0 "${RS_PID[$1]}" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	e2e_log "$1 is not listening on $3:"
	tail -20 "$E2E_DIR/$1.log" | sed 's/^/#   /' >&2
	return 1
}

_rs_as_postgres() {
	setpriv --reuid=postgres --regid=postgres --init-groups "$@"
}

_rs_psql() { # database sql
	_rs_as_postgres "$RS_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$RS_PG_DIR" -U vpath \
		-d "$1" -c "$2" >>"$E2E_DIR/psql.log" 2>&1
}

_rs_postgres_start() {
	RS_PG_BIN=$(_rs_pg_bin)
	chown postgres: "$RS_PG_DIR"
	echo "$RS_PG_PASSWORD" >"$RS_PG_DIR/pw"
	_rs_as_postgres "$RS_PG_BIN/initdb" -D "$RS_PG_DIR/data" -U vpath --pwfile="$RS_PG_DIR/pw" \
		--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --no-sync \
		>"$E2E_DIR/initdb.log" 2>&1 || { e2e_log "initdb failed"; tail -5 "$E2E_DIR/initdb.log" >&2; return 1; }
	echo "host all all $RS_NET.0/24 scram-sha-256" >>"$RS_PG_DIR/data/pg_hba.conf"
	_rs_spawn postgres db setpriv --reuid=postgres --regid=postgres --init-groups \
		"$RS_PG_BIN/postgres" -D "$RS_PG_DIR/data" -c "listen_addresses=${RS_DB%:*}" \
		-c "port=${RS_DB#*:}" -c "unix_socket_directories=$RS_PG_DIR" \
		-c log_statement=all -c log_connections=on -c "log_line_prefix=%m [%p] %r " \
		-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300
	_rs_wait_listen postgres db "$RS_DB" || return 1
	# Listening is not accepting: until recovery ends, connections get
	# "the database system is starting up".
	local i
	for ((i = 0; i < 300; i++)); do
		_rs_as_postgres "$RS_PG_BIN/pg_isready" -q -h "$RS_PG_DIR" -U vpath -d postgres && break
		sleep 0.1
	done
	_rs_psql postgres "CREATE DATABASE vpath" &&
		_rs_psql vpath "CREATE TABLE items (id int PRIMARY KEY, val text, hits int DEFAULT 0);
			INSERT INTO items (id, val) SELECT i, md5(i::text) FROM generate_series(0, 999) i" ||
		{ e2e_log "database setup failed"; tail -5 "$E2E_DIR/psql.log" >&2; return 1; }
}

_rs_redis_start() {
	mkdir -p "$E2E_DIR/redis"
	# slowlog-log-slower-than 0: Redis logs every command with its client's address.
	_rs_spawn redis cache redis-server --bind "${RS_CACHE%:*}" --port "${RS_CACHE#*:}" \
		--save "" --appendonly no --protected-mode no --daemonize no --dir "$E2E_DIR/redis" \
		--slowlog-log-slower-than 0 --slowlog-max-len 1000000
	_rs_wait_listen redis cache "$RS_CACHE"
}

_rs_app_start() {
	head -c 65536 /dev/urandom | base64 -w 100 >"$E2E_DIR/static.txt"
	_rs_spawn app app env VPATH_PG_DSN="host=${RS_DB%:*} port=${RS_DB#*:} dbname=vpath user=vpath password=$RS_PG_PASSWORD" \
		VPATH_REDIS="$RS_CACHE" VPATH_FILE="$E2E_DIR/static.txt" \
		VPATH_PG_POOL="${RS_PG_POOL:-8}" VPATH_REDIS_POOL="${RS_REDIS_POOL:-4}" \
		VPATH_RECONNECT="${RS_RECONNECT:-0.02}" VPATH_BACKGROUND="${RS_BACKGROUND:-0}" \
		VPATH_BACKGROUND_GO="$E2E_DIR/background.go" VPATH_BACKGROUND_STOP="$E2E_DIR/background.stop" \
		/usr/bin/gunicorn --chdir "$RS_SRC" --workers 1 --worker-class gthread \
		--threads "${RS_THREADS:-8}" \
		--keep-alive 300 --bind "$RS_APP" --error-logfile - app:application
	_e2e_wait_line "$E2E_DIR/app.log" "vpath-app: ready" "${RS_PID[app]}" 30 "the app" &&
		_rs_wait_listen app app "$RS_APP"
}

_rs_nginx_start() {
	local d=$E2E_DIR/nginx
	mkdir -p "$d"
	sed -e "s|@DIR@|$d|g" -e "s|@WORKERS@|${RS_NGINX_WORKERS:-2}|g" -e "s|@WEB@|$RS_WEB|g" -e "s|@APP@|$RS_APP|g" \
		"$RS_SRC/nginx.conf.in" >"$d/nginx.conf"
	_rs_spawn nginx web /usr/sbin/nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
		-g "daemon off;"
	_rs_wait_listen nginx web "$RS_WEB"
}

rs_servers_start() {
	_rs_postgres_start && _rs_redis_start && _rs_app_start && _rs_nginx_start
}

# Only what the requests do from now on stays in Redis's log: call it right
# before the recorders start.
rs_redis_log_reset() {
	ip netns exec "$(e2e_ns cache)" redis-cli -h "${RS_CACHE%:*}" -p "${RS_CACHE#*:}" \
		SLOWLOG RESET >/dev/null
}

# Stops one server (nginx and gunicorn leave on TERM, Redis too, PostgreSQL's
# fast shutdown is INT) and forgets it.
_rs_stop() { # name signal
	local pid=${RS_PID[$1]:-}
	[ -n "$pid" ] || return 0
	_e2e_kill_group "$2" "$pid"
	_e2e_wait_gone "$pid" 100
	unset "RS_PID[$1]"
}

rs_servers_stop() {
	_rs_stop nginx TERM
	_rs_stop app TERM
	_rs_stop redis TERM
	_rs_stop postgres INT
}

# The app's background thread calls only while the recorders run.
rs_background_start() {
	touch "$E2E_DIR/background.go"
}

rs_background_stop() {
	touch "$E2E_DIR/background.stop"
	[ "${RS_BACKGROUND:-0}" = 0 ] ||
		_e2e_wait_line "$E2E_DIR/app.log" "background stopped" "${RS_PID[app]}" 10 "the app"
}

rs_client_start() { # client.py options...
	setsid ip netns exec "$(e2e_ns client)" "$RS_PY" "$RS_SRC/client.py" --target "$RS_WEB" \
		--out "$E2E_DIR/client.jsonl" "$@" >"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" \
		</dev/null &
	E2E_CLIENT_PID=$!
}

# With --warmup: returns once the client has warmed the stack up and waits.
rs_client_wait_warm() {
	_e2e_wait_line "$E2E_DIR/client.log" "client.py: warm" "$E2E_CLIENT_PID" 120 "the client"
}

rs_client_wait() {
	e2e_client_wait client
}

rs_logs_collect() {
	ip netns exec "$(e2e_ns cache)" "$RS_PY" "$RS_SRC/check.py" redis-log --addr "$RS_CACHE" \
		>"$E2E_DIR/redis-slowlog.json"
}

rs_check() { # check.py compare options...
	python3 "$RS_SRC/check.py" compare --dir "$E2E_DIR" --topology "$E2E_DIR/topology.json" "$@"
}
