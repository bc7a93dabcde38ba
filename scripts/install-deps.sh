#!/usr/bin/env bash
# Installs what vpath needs to build and test, from the distribution's packages
# (Debian 12+, Ubuntu 22.04+).  Uses sudo when not run as root.
set -euo pipefail
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

PKGS=(
	make gcc clang llvm pkg-config            # build: clang -target bpf, llvm-strip
	clang-format                              # make format, tests/integration/test_format.sh
	libbpf-dev libelf-dev zlib1g-dev libisal-dev libcjson-dev
	libcmocka-dev                             # unit tests
	libdw-dev                                 # vpath-record: goid's offset in a Go binary's DWARF
	libclang-rt-dev                           # libFuzzer for clang (make fuzz, tests/integration/test_fuzz.sh)
	python3-seccomp                           # tests/tools/unit_sandbox.py: the systemd unit's filter without systemd
	libsqlite3-dev libcurl4-openssl-dev       # vpath-analyze sqlite, otlp --endpoint
	libnghttp2-dev                            # vpath-analyze: HTTP/2 header blocks (HPACK)
	chromium sqlite3                          # tests: the HTML report in headless Chromium, docs/sqlite.md's queries
	iproute2 procps psmisc python3 systemd    # integration tests: netns, ps, systemd-analyze
	nginx postgresql redis-server gunicorn    # tests/realstack: real servers; tests/h2: nginx grpc_pass; tests/logs/servers.sh
	python3-psycopg2 python3-redis wrk
	nodejs                                    # tests/evloop: the Node.js event-loop gateway; tests/logs/service.js
	pgbouncer haproxy                         # tests/pgbouncer: a pooler, a proxy in TCP mode; linked by forwarded bytes
	rabbitmq-server python3-pika              # tests/queue --broker rabbitmq: a RabbitMQ work queue
	php-fpm php-mysql mariadb-server openssl  # tests/phpstack: PHP-FPM -> MariaDB over TLS
	openjdk-17-jdk-headless golang-go         # tests/handoff: the Java and Go front ends (compiled offline)
	golang-golang-x-net-dev                   # tests/h2: Go's HTTP/2 (x/net/http2, h2c), compiled offline
	golang-google-grpc-dev python3-grpcio     # tests/h2: gRPC in Go (compiled offline) and in Python
	clickhouse-server clickhouse-client       # tests/clickhouse: the cross-host join in SQL, two shards
	dpkg-dev lintian                          # make deb (dpkg-shlibdeps, dpkg-gencontrol), test_deb.sh
	man-db bash-completion                    # test_man.sh (man --warnings), test_deb.sh (the loader)
)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# bpftool is its own package on Debian and on Ubuntu 24.04+, in linux-tools before.
command -v bpftool >/dev/null 2>&1 || missing+=(bpftool)
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
echo "installing: ${missing[*]}"
$SUDO apt-get update -qq
if ! $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null; then
	# Ubuntu before 24.04: bpftool comes with the kernel's linux-tools.
	rest=("${missing[@]/bpftool/}")
	$SUDO apt-get install -y -qq ${rest[@]} "linux-tools-$(uname -r)" linux-tools-common >/dev/null
fi
# tests/realstack runs its own nginx, PostgreSQL and Redis in network
# namespaces (tests/clickhouse its own two ClickHouse servers, tests/pgbouncer
# its own PgBouncer and haproxy, tests/queue its own RabbitMQ); the system
# services these packages start are not wanted.
for svc in nginx postgresql redis-server clickhouse-server pgbouncer haproxy rabbitmq-server; do
	case " ${missing[*]} " in *" $svc "*) ;; *) continue ;; esac
	if [ -d /run/systemd/system ]; then
		$SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true
	fi
done
# tests/phpstack likewise; PHP-FPM's and MariaDB's services are named apart
# from their packages.
for pkg in php-fpm mariadb-server; do
	case " ${missing[*]} " in *" $pkg "*) ;; *) continue ;; esac
	[ -d /run/systemd/system ] || continue
	case $pkg in php-fpm) unit='php*-fpm.service' ;; *) unit=mariadb.service ;; esac
	for svc in $(systemctl list-unit-files --no-legend "$unit" 2>/dev/null | awk '{print $1}'); do
		$SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true
	done
done
