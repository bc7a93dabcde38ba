#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Recorder cost on a busy proxy port (issue 25): pgbench's clients send
# small queries (a SELECT of one row by a random id, simple protocol) as
# fast as they go through a relay (RELAY: PgBouncer in transaction pooling,
# 2 server connections, or haproxy in TCP mode) to PostgreSQL, all three on
# one network-namespace host (tests/pgbouncer/servers.sh), in interleaved runs
# with the recorder (--netns: that host) off and on, three ways: plain (every
# operation), capture (also each message's first 256 bytes,
# --capture 256 on both of the relay's ports: what linking by forwarded
# bytes needs) and hash (--capture-hash 256 there instead: keyed hashes of
# those bytes, computed in BPF, no bytes stored).  Every query crosses two
# captured connections, each way.  Reports queries/s of each run and the
# on/off ratio (median of the pairs, min, max), what the recorder lost, the
# payload and hash records it wrote and the size of its recording; then
# hash against capture: the ratio of their medians of on/off queries/s and
# of their bytes recorded per query.
#
# Environment: PAIRS (5), RUN_S (5 seconds per run), CLIENTS (8),
# RELAY (pgbouncer or haproxy).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/e2e/harness.sh
. tests/pgbouncer/servers.sh
. tests/bench/lib/recorder.sh

PAIRS=${PAIRS:-5}
RUN_S=${RUN_S:-5}
CLIENTS=${CLIENTS:-8}
RELAY=${RELAY:-pgbouncer}
VPRSTAT=$OUTPUT/tests/vprstat
HOST_IP=10.214.0.1
DB=$HOST_IP:5432 PROXY=$HOST_IP:6432

case $RELAY in
pgbouncer | haproxy) ;;
*) echo "relay benchmark: RELAY is pgbouncer or haproxy" >&2; exit 1 ;;
esac
why=$(bpf_unavailable)
if [ -z "$why" ] && ! ip netns list >/dev/null 2>&1; then
	why="no network namespaces (ip netns)"
fi
if [ -z "$why" ]; then
	missing=$(relay_missing "$RELAY")
	[ -x "$(relay_pg_bin)/pgbench" ] || missing="$missing pgbench"
	[ -z "$(echo $missing)" ] || why="needs $(echo $missing) (scripts/install-deps.sh)"
fi
if [ -n "$why" ]; then
	echo "relay benchmark skipped: $why"
	exit 0
fi
bench_scratch "relay benchmark" "$VPATH_RECORD" "$VPRSTAT"
e2e_hosts_setup bench:$HOST_IP || exit 1
relay_dir_make || exit 1
relay_postgres_start bench "$DB" || exit 1
case $RELAY in
pgbouncer) relay_pgbouncer_start bench "$PROXY" "$DB" transaction ;;
haproxy) relay_haproxy_start bench "$PROXY" "$DB" ;;
esac || exit 1
printf '%s\n' '\set id random(0, 999)' \
	'SELECT val FROM items WHERE id = :id /* a request of the relay benchmark */;' \
	>"$dir/select.sql"

# load: one run of pgbench through the relay; prints queries/s.
load() {
	local out
	out=$(ip netns exec "$(e2e_ns bench)" "$(relay_pg_bin)/pgbench" -n -M simple \
		-c "$CLIENTS" -j 2 -T "$RUN_S" -f "$dir/select.sql" -h "${PROXY%:*}" \
		-p "${PROXY#*:}" -U vpath vpath 2>&1) || {
		echo "relay benchmark: pgbench failed:" >&2
		echo "$out" | tail -5 >&2
		return 1
	}
	echo "$out" | awk '/^tps = / { print $3; exit }'
}
# load_on NAME ARGS...: a run under the recorder; prints
# "queries/s lost payload-records hash-records bytes-per-query".
load_on() {
	local name=$1 qps st dump size
	shift
	start_recorder "$dir/$name.vpr" --netns "/run/netns/$(e2e_ns bench)" "$@" || return 1
	qps=$(load)
	stop_recorder || return 1
	st=$("$VPRSTAT" "$dir/$name.vpr") || return 1
	dump=$("$VPATH_ANALYZE" dump "$dir/$name.vpr")
	size=$(stat -c %s "$dir/$name.vpr")
	echo "$qps $(kv lost "$st") $(grep -c '^payload ' <<<"$dump")" \
		"$(grep -c '^payload_hash ' <<<"$dump") $(calc "$size / ($qps * $RUN_S)")"
	rm -f "$dir/$name.vpr"
}

echo "vpath relay benchmark: $CLIENTS pgbench clients -> $RELAY -> PostgreSQL, one netns host"
echo "$(date -u +%Y-%m-%d), $(nproc) CPUs, kernel $(uname -r), $PAIRS pairs of $RUN_S s"
printf '%-4s %-8s %10s %10s %6s %6s %9s %9s %8s\n' pair mode "off q/s" "on q/s" ratio lost \
	payload hashes "B/query"
declare -A median size_med
for mode in plain capture hash; do
	case $mode in
	plain) args=() ;;
	capture) args=(--capture 256 --capture-port "${PROXY#*:}" --capture-port "${DB#*:}") ;;
	hash) args=(--capture-hash 256 --capture-port "${PROXY#*:}" --capture-port "${DB#*:}") ;;
	esac
	sizes=()
	ratios=()
	for i in $(seq "$PAIRS"); do
		if [ $((i % 2)) -eq 1 ]; then
			off=$(load) || exit 1
			on=$(load_on "$mode$i" "${args[@]}") || exit 1
		else
			on=$(load_on "$mode$i" "${args[@]}") || exit 1
			off=$(load) || exit 1
		fi
		read -r qps lost payload hashes bpq <<<"$on"
		r=$(calc "$qps / $off")
		ratios+=("$r")
		sizes+=("$bpq")
		printf '%-4s %-8s %10.0f %10.0f %6.3f %6s %9s %9s %8.1f\n' "$i" "$mode" "$off" "$qps" \
			"$r" "$lost" "$payload" "$hashes" "$bpq"
	done
	read -r med lo hi <<<"$(stats "${ratios[@]}")"
	median[$mode]=$med
	read -r size_med[$mode] _ _ <<<"$(stats "${sizes[@]}")"
	echo "$mode: on/off queries/s median $med (min $lo, max $hi)"
done
echo "hash vs capture: on/off queries/s $(calc "${median[hash]} / ${median[capture]}")" \
	"(medians ${median[hash]} / ${median[capture]}), bytes recorded per query" \
	"$(calc "${size_med[hash]} / ${size_med[capture]}")" \
	"(${size_med[hash]} / ${size_med[capture]})"

e2e_servers_stop
