#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Payload capture against a real MariaDB (the redaction of MySQL's
# authentication was only tested on packets this project wrote): a server on
# loopback, a user with a password, and Debian's `mariadb` client logging in
# twice without TLS, once with the native scramble and once sending the
# password in clear (mysql_clear_password, then switched to the native
# plugin), each running one query, recorded with --capture.  The password
# and the scrambles must appear in no byte of the recording; the client's
# authentication packets come out redacted with the user name kept, at the
# client (one write) and at the server (MariaDB reads a packet's 4-byte
# header, then its body); the queries and the server's greeting stay.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record capture mariadb"
for c in /usr/sbin/mariadbd mariadb-install-db mariadb; do
	if ! command -v "$c" >/dev/null; then
		skip "record capture mariadb" "$c not installed (make deps installs mariadb-server)"
		exit 0
	fi
done

d=$(scratch_dir)
port=$(free_port)
pw="vp-Zq8-$RANDOM$RANDOM-secret"
data=$d/data
mkdir -p "$data"
if ! mariadb-install-db --no-defaults --user=root --datadir="$data" --skip-test-db \
	--auth-root-authentication-method=socket >"$d/install.log" 2>&1; then
	not_ok "record capture mariadb: mariadb-install-db failed: $(tail -1 "$d/install.log")"
	exit 0
fi
/usr/sbin/mariadbd --no-defaults --user=root --datadir="$data" --socket="$d/sock" \
	--pid-file="$d/pid" --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
	--skip-log-bin --innodb-buffer-pool-size=16M 2>"$d/server.log" &
server=$!
on_exit "kill -KILL $server"
for _ in $(seq 300); do
	mariadb --no-defaults -S "$d/sock" -u root -e "SELECT 1" >/dev/null 2>&1 && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
if ! mariadb --no-defaults -S "$d/sock" -u root \
	-e "CREATE USER 'vp'@'127.0.0.1' IDENTIFIED BY '$pw'" 2>"$d/setup.log"; then
	not_ok "record capture mariadb: the server did not start or take the user: $(tail -1 "$d/setup.log") $(tail -1 "$d/server.log")"
	exit 0
fi

login() { # marker [client options...]
	local marker=$1
	shift
	mariadb --no-defaults -h 127.0.0.1 -P "$port" -u vp -p"$pw" --skip-ssl "$@" \
		-N -e "SELECT '$marker'" 2>>"$d/client.log"
}

start_recorder "$d/db.vpr" "$d/record.log" --capture 256 --capture-port "$port" --port "$port"
check "record capture mariadb: the recorder starts" test $? -eq 0
native=$(login vpath-native-marker)
clear=$(login vpath-clear-marker --default-auth=mysql_clear_password)
sleep 0.3
stop_recorder
check "record capture mariadb: the recording succeeds" test $? -eq 0
check "record capture mariadb: both logins ran their query ($native, $clear; $(tail -1 "$d/client.log" 2>/dev/null))" \
	test "$native" = vpath-native-marker -a "$clear" = vpath-clear-marker

"$VPATH_ANALYZE" dump "$d/db.vpr" >"$d/dump.txt" 2>"$d/dump.err"
check "record capture mariadb: vpath-analyze dump reads it" test $? -eq 0
check "record capture mariadb: the password is in no byte of the recording" \
	test "$(grep -a -c -F -- "$pw" "$d/db.vpr")" = 0
check "record capture mariadb: nor in what dump shows" \
	test "$(grep -c -F -- "$pw" "$d/dump.txt")" = 0
redacted=$(grep '^payload' "$d/dump.txt" | grep -c ' redacted')
# Two handshake responses and the scramble sent after the switch, each seen
# at both ends (client and server are both on this host).
check "record capture mariadb: the authentication packets are redacted at both ends ($redacted, at least 6)" \
	test "$redacted" -ge 6
check "record capture mariadb: the user name is kept in the redacted handshake responses" \
	test "$(grep '^payload' "$d/dump.txt" | grep ' redacted' | grep -c 'vp\\x00')" -ge 4
check "record capture mariadb: the redacted bytes are stars" \
	test "$(grep '^payload' "$d/dump.txt" | grep ' redacted' | grep -c '\*\*\*\*\*\*\*\*')" -ge 6
check "record capture mariadb: both queries are captured as sent" \
	test "$(grep '^payload' "$d/dump.txt" | grep -c -e "SELECT 'vpath-native-marker'" -e "SELECT 'vpath-clear-marker'")" -ge 4
check "record capture mariadb: the server's greeting is not redacted" \
	test "$(grep '^payload' "$d/dump.txt" | grep -v ' redacted' | grep -c 'mysql_native_password')" -ge 2
