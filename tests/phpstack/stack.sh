# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The PHP stack (issue 17), sourced by its run script and integration test
# after tests/lib.sh and tests/e2e/harness.sh, whose hosts, recorders and
# cleanup it reuses, like tests/realstack/stack.sh, whose server helpers
# (_rs_spawn, _rs_wait_listen, _rs_stop) it borrows.  Unmodified servers from
# Debian's packages, each on its own network-namespace host:
#
#   client 10.202.0.10 --TLS 1.3, HTTP/1.1 keep-alive--> web 10.202.0.1:443 nginx (one event loop)
#     --FastCGI, kept-alive connections--> php 10.202.0.2:9000 PHP-FPM (pm = static, app.php)
#       --a new mysqli connection per request, TLS--> db 10.202.0.3:3306 MariaDB
#                                                     (require_secure_transport, general log)
#
#   ps_unavailable           why the stack cannot run here (after trying to install)
#   ps_setup                 hosts, throwaway certificates; scratch dir in $E2E_DIR
#   ps_servers_start CONNS   MariaDB, PHP-FPM (max(4, CONNS) workers), nginx
#   ps_client_start ARGS...  client.py; its record in $E2E_DIR/client.jsonl
#   ps_client_wait           until the client is done
#   ps_servers_stop
#   ps_check ARGS...         check.py: ground truth vs. $E2E_DIR/found.json
# Knobs (environment): PS_KEEPALIVE (requests nginx serves on a client
# connection before it ends it, 100), PS_FCGI_REQUESTS (the same for its
# FastCGI connections, 100).  Config, data, certificates and logs live in the
# scratch dir (MariaDB's data on /dev/shm when there is one); nothing under
# /etc is touched (nginx includes Debian's fastcgi_params, PHP-FPM reads
# Debian's conf.d to load mysqli), and everything is stopped and removed on
# any exit.

PS_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$PS_SRC/../realstack/stack.sh"
PS_NET=10.202.0
PS_CLIENT=$PS_NET.10:0
PS_WEB=$PS_NET.1:443
PS_PHP=$PS_NET.2:9000
PS_DB=$PS_NET.3:3306
PS_DB_PASSWORD=vpath-test
PS_MARIADB_DATA=

_ps_fpm_bin() {
	ls /usr/sbin/php-fpm* 2>/dev/null | sort -V | tail -1
}

_ps_missing() {
	local fpm
	fpm=$(_ps_fpm_bin)
	[ -n "$fpm" ] || echo php-fpm
	[ -z "$fpm" ] || "$fpm" -m 2>/dev/null | grep -qx mysqli || echo php-mysql
	[ -x /usr/sbin/mariadbd ] && command -v mariadb-install-db >/dev/null &&
		command -v mariadb >/dev/null || echo mariadb-server
	[ -x /usr/sbin/nginx ] || echo nginx
	command -v openssl >/dev/null || echo openssl
}

# Why the stack cannot run here (after trying to install), or nothing.
ps_unavailable() {
	e2e_servers_unavailable _ps_missing
}

# A throwaway CA, and a certificate of NAME for IP signed by it (EC P-256:
# one handshake per MariaDB connection, so signing must be cheap).
_ps_cert() { # name ip
	local d=$E2E_DIR
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$d/$1.key" -out "$d/$1.csr" -subj "/CN=$2" 2>>"$d/openssl.log" &&
		openssl x509 -req -in "$d/$1.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" \
			-CAcreateserial -days 2 -out "$d/$1.crt" \
			-extfile <(echo "subjectAltName=IP:$2") 2>>"$d/openssl.log"
}

_ps_certs() {
	openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
		-keyout "$E2E_DIR/ca.key" -out "$E2E_DIR/ca.crt" -subj "/CN=vpath test CA" \
		-days 2 2>>"$E2E_DIR/openssl.log" &&
		_ps_cert web "${PS_WEB%:*}" && _ps_cert db "${PS_DB%:*}" ||
		{ e2e_log "openssl failed:"; tail -5 "$E2E_DIR/openssl.log" >&2; return 1; }
}

ps_setup() {
	e2e_hosts_setup "client:${PS_CLIENT%:*}" "web:${PS_WEB%:*}" "php:${PS_PHP%:*}" \
		"db:${PS_DB%:*}" || return 1
	# MariaDB's data directory: on tmpfs when there is one (mariadb-install-db
	# takes 2.5 s there, 6.5 s on this machine's disk), else in the scratch dir.
	local shm
	PS_MARIADB_DATA=$E2E_DIR/mariadb/data
	if [ -d /dev/shm ] && shm=$(mktemp -d /dev/shm/vpath-mariadb.XXXXXX); then
		on_exit "rm -rf '$shm'"
		PS_MARIADB_DATA=$shm
	fi
	# Stop the servers before the harness kills what is left in the namespaces.
	on_exit ps_servers_stop
	_ps_certs || return 1
	cat >"$E2E_DIR/topology.json" <<-EOF
	[{"name": "nginx", "addr": "$PS_WEB", "model": "epoll"},
	 {"name": "php", "addr": "$PS_PHP", "model": "thread"},
	 {"name": "mariadb", "addr": "$PS_DB", "model": "thread"}]
	EOF
}

_ps_sql() { # sql: as MariaDB's root, over its unix socket
	mariadb --no-defaults -S "$E2E_DIR/mariadb/sock" -u root -e "$1" \
		>>"$E2E_DIR/mariadb-setup.log" 2>&1
}

_ps_mariadb_start() {
	local d=$E2E_DIR/mariadb data=$PS_MARIADB_DATA
	mkdir -p "$d"
	mariadb-install-db --no-defaults --user=root --datadir="$data" --skip-test-db \
		--auth-root-authentication-method=socket >"$E2E_DIR/mariadb-install.log" 2>&1 ||
		{ e2e_log "mariadb-install-db failed"; tail -5 "$E2E_DIR/mariadb-install.log" >&2; return 1; }
	# The general log (every connection, query and quit with the connection's
	# id) is turned on once the setup below is done.
	_rs_spawn mariadb db /usr/sbin/mariadbd --no-defaults --user=root --datadir="$data" \
		--socket="$d/sock" --pid-file="$d/pid" --bind-address="${PS_DB%:*}" \
		--port="${PS_DB#*:}" --skip-name-resolve --skip-log-bin --max-connections=500 \
		--innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=0 \
		--general-log=0 --general-log-file="$d/general.log" --log-error="$d/error.log" \
		--ssl-ca="$E2E_DIR/ca.crt" --ssl-cert="$E2E_DIR/db.crt" --ssl-key="$E2E_DIR/db.key" \
		--require-secure-transport=ON
	_rs_wait_listen mariadb db "$PS_DB" || return 1
	_ps_sql "CREATE DATABASE vpath; USE vpath;
		CREATE TABLE vpath.items (id INT PRIMARY KEY, val VARCHAR(64));
		INSERT INTO vpath.items SELECT seq, MD5(seq) FROM seq_0_to_999;
		CREATE USER 'vpath'@'%' IDENTIFIED BY '$PS_DB_PASSWORD' REQUIRE SSL;
		GRANT SELECT ON vpath.* TO 'vpath'@'%';
		SET GLOBAL general_log = 1" ||
		{ e2e_log "MariaDB setup failed"; tail -5 "$E2E_DIR/mariadb-setup.log" >&2; return 1; }
}

_ps_fill() { # template: @...@ of the stack's config files
	sed -e "s|@DIR@|$2|g" -e "s|@SRC@|$PS_SRC|g" -e "s|@WEB@|$PS_WEB|g" -e "s|@PHP@|$PS_PHP|g" \
		-e "s|@PHP_PORT@|${PS_PHP#*:}|g" -e "s|@DB_HOST@|${PS_DB%:*}|g" \
		-e "s|@DB_PORT@|${PS_DB#*:}|g" -e "s|@DB_PASSWORD@|$PS_DB_PASSWORD|g" \
		-e "s|@WORKERS@|$3|g" -e "s|@KEEPALIVE@|${PS_KEEPALIVE:-100}|g" \
		-e "s|@FCGI_REQUESTS@|${PS_FCGI_REQUESTS:-100}|g" "$PS_SRC/$1"
}

_ps_fpm_start() { # workers
	local d=$E2E_DIR/php
	mkdir -p "$d/state"
	cp "$E2E_DIR/ca.crt" "$d/"
	_ps_fill php-fpm.conf.in "$d" "$1" >"$d/php-fpm.conf"
	printf 'log_errors = On\nerror_log = %s\n' "$d/php-errors.log" >"$d/php.ini"
	_rs_spawn php php "$(_ps_fpm_bin)" --nodaemonize --allow-to-run-as-root \
		--fpm-config "$d/php-fpm.conf" -c "$d/php.ini"
	_rs_wait_listen php php "$PS_PHP"
}

_ps_nginx_start() {
	local d=$E2E_DIR/nginx
	mkdir -p "$d"
	cp "$E2E_DIR/web.crt" "$E2E_DIR/web.key" "$d/"
	_ps_fill nginx.conf.in "$d" 0 >"$d/nginx.conf"
	_rs_spawn nginx web /usr/sbin/nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
		-g "daemon off;"
	_rs_wait_listen nginx web "$PS_WEB"
}

# PHP-FPM gets a worker per client connection at least: a worker stays on a
# kept-alive FastCGI connection until nginx ends it (nginx.conf.in).
ps_servers_start() { # client connections
	local workers=$(($1 > 4 ? $1 : 4))
	_ps_mariadb_start && _ps_fpm_start "$workers" && _ps_nginx_start
}

ps_servers_stop() {
	_rs_stop nginx TERM
	_rs_stop php TERM
	_rs_stop mariadb TERM
}

ps_client_start() { # client.py options...
	setsid ip netns exec "$(e2e_ns client)" python3 "$PS_SRC/client.py" --target "$PS_WEB" \
		--ca "$E2E_DIR/ca.crt" --out "$E2E_DIR/client.jsonl" "$@" \
		>"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" </dev/null &
	E2E_CLIENT_PID=$!
}

ps_client_wait() {
	e2e_client_wait client
}

ps_check() { # check.py compare options...
	python3 "$PS_SRC/check.py" compare --dir "$E2E_DIR" --topology "$E2E_DIR/topology.json" "$@"
}

# The PHP stack's recording for an output test (200 requests on 2 connections,
# seed 17) in DIR/php: sets REC_FILES, or prints NAME's skip or failure line and
# returns 1.  Source tests/lib.sh and tests/e2e/harness.sh first.
ps_recording() { # NAME DIR
	local why
	why=$(ps_unavailable 2>/dev/null)
	if [ -n "$why" ]; then
		skip "$1: PHP stack" "$why"
		return 1
	fi
	tests/phpstack/run.sh --requests 200 --conns 2 --seed 17 --keep "$2/php" >"$2/php.log" 2>&1
	if ! compgen -G "$2/php/*.vpr" >/dev/null; then
		not_ok "$1: PHP stack: a recording to read"
		tail -5 "$2/php.log" | sed 's/^/# /'
		return 1
	fi
	REC_FILES=("$2"/php/*.vpr)
}
