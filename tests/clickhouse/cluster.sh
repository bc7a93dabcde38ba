# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Source after tests/lib.sh.  A ClickHouse cluster of two shards for a test:
# two clickhouse-server processes on 127.0.0.1 only, on free ports, each with
# its own data directory and configuration under the test's scratch
# directory, and a cluster `vpath` naming both shards (for Distributed
# tables).  No system service is used; both servers are stopped on exit,
# failure or interrupt (tests/lib.sh on_exit), and their files go with the
# scratch directory.
#
#   why=$(ch_unavailable) && [ -z "$why" ] || skip NAME "$why"
#   ch_cluster_start DIR       sets CH_PORTS (the two shards' native ports)
#   ch 1 -q 'SELECT 1'         clickhouse-client on shard 1 (or 2)
CH_SERVER=${CH_SERVER:-/usr/sbin/clickhouse-server}
CH_CLIENT=${CH_CLIENT:-clickhouse-client}
CH_PORTS=()

# Why the ClickHouse tests cannot run here, or nothing when they can.
ch_unavailable() {
	if [ ! -x "$CH_SERVER" ]; then
		echo "no $CH_SERVER (Debian's clickhouse-server; make deps installs it)"
	elif ! command -v "$CH_CLIENT" >/dev/null 2>&1; then
		echo "no $CH_CLIENT (Debian's clickhouse-client; make deps installs it)"
	fi
}

# A TCP port nobody listens on at 127.0.0.1 now.
_ch_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_ch_config() { # DIR PORT: the server's config.xml and users.xml in DIR
	local dir=$1 port=$2
	cat >"$dir/users.xml" <<-EOF
	<?xml version="1.0"?>
	<yandex>
	  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
	  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
	    <profile>default</profile><quota>default</quota></default></users>
	  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
	    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
	  </interval></default></quotas>
	</yandex>
	EOF
	cat >"$dir/config.xml" <<-EOF
	<?xml version="1.0"?>
	<yandex>
	  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/error.log</errorlog></logger>
	  <listen_host>127.0.0.1</listen_host>
	  <tcp_port>$port</tcp_port>
	  <path>$dir/data/</path>
	  <tmp_path>$dir/tmp/</tmp_path>
	  <user_files_path>$dir/user_files/</user_files_path>
	  <format_schema_path>$dir/format_schemas/</format_schema_path>
	  <users_config>$dir/users.xml</users_config>
	  <default_profile>default</default_profile>
	  <default_database>default</default_database>
	  <mark_cache_size>67108864</mark_cache_size>
	  <uncompressed_cache_size>67108864</uncompressed_cache_size>
	  <max_concurrent_queries>16</max_concurrent_queries>
	  <remote_servers>
	    <vpath>
	      <shard><replica><host>127.0.0.1</host><port>${CH_PORTS[0]}</port></replica></shard>
	      <shard><replica><host>127.0.0.1</host><port>${CH_PORTS[1]}</port></replica></shard>
	    </vpath>
	  </remote_servers>
	</yandex>
	EOF
}

ch() { # SHARD ARGS...: clickhouse-client on that shard (1 or 2)
	local n=$1
	shift
	"$CH_CLIENT" --host 127.0.0.1 --port "${CH_PORTS[$((n - 1))]}" "$@"
}

_ch_stop() { # PIDFILE: stop the server and wait for it (at most 10 s, then kill it)
	local pid i
	pid=$(cat "$1" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null
}

# Start both shards under DIR and wait until each answers (at most 30 s).
ch_cluster_start() { # DIR
	local dir=$1 n i
	CH_PORTS=("$(_ch_free_port)" "$(_ch_free_port)")
	while [ "${CH_PORTS[0]}" = "${CH_PORTS[1]}" ]; do CH_PORTS[1]=$(_ch_free_port); done
	for n in 1 2; do
		mkdir -p "$dir/shard$n/data" "$dir/shard$n/tmp" || return 1
		_ch_config "$dir/shard$n" "${CH_PORTS[$((n - 1))]}"
		"$CH_SERVER" --config-file="$dir/shard$n/config.xml" >"$dir/shard$n/stdout" 2>&1 &
		echo $! >"$dir/shard$n/pid"
		on_exit "_ch_stop '$dir/shard$n/pid'"
	done
	for n in 1 2; do
		for i in $(seq 1 300); do
			ch "$n" -q 'SELECT 1' >/dev/null 2>&1 && break
			if ! kill -0 "$(cat "$dir/shard$n/pid")" 2>/dev/null || [ "$i" = 300 ]; then
				echo "# clickhouse shard $n did not start:"
				tail -3 "$dir/shard$n/error.log" "$dir/shard$n/stdout" 2>/dev/null | sed 's/^/#   /'
				return 1
			fi
			sleep 0.1
		done
	done
}

# Resident memory of both servers now, in kB.
ch_cluster_rss_kb() { # DIR
	local n total=0 kb
	for n in 1 2; do
		kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$(cat "$1/shard$n/pid")/status" 2>/dev/null)
		total=$((total + ${kb:-0}))
	done
	echo "$total"
}
