#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Recorder overhead on real servers: the tests/realstack scenario (nginx ->
# gunicorn threads -> PostgreSQL + Redis, each on its own network-namespace
# host) saturated by wrk (16 keep-alive connections, a random seed per
# request, so the usual mix of queries and commands), in interleaved runs
# with the five recorders off and on.  Reports requests/s of each run and the
# on/off ratio (median of the pairs, min, max); the target is >= 0.97.
# No fresh PostgreSQL connections (RS_RECONNECT=0), so that every run sees the
# same work.
#
# Environment: PAIRS (5), RUN_S (5 seconds per run), CONNS (16).
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/realstack/stack.sh

PAIRS=${PAIRS:-5}
RUN_S=${RUN_S:-5}
CONNS=${CONNS:-16}
TARGET_RATIO=0.97
export RS_RECONNECT=0

why=$(rs_unavailable)
[ -n "$why" ] || command -v wrk >/dev/null || why="needs wrk (scripts/install-deps.sh)"
if [ -n "$why" ]; then
	echo "real-servers benchmark skipped: $why"
	exit 0
fi
rs_setup || exit 1
rs_servers_start || exit 1
cat >"$E2E_DIR/seeds.lua" <<'EOF'
request = function()
	return wrk.format("GET", "/work?s=" .. math.random(0, 2147483647))
end
EOF

# One wrk run from the client host; prints its requests/s.
run_wrk() {
	local out
	out=$(ip netns exec "$(e2e_ns client)" wrk -t 2 -c "$CONNS" -d "${RUN_S}s" --timeout 10s \
		-s "$E2E_DIR/seeds.lua" "http://$RS_WEB/" 2>&1) || { echo "$out" >&2; return 1; }
	if grep -q "Non-2xx\|Socket errors" <<<"$out"; then
		echo "# wrk saw errors:" >&2
		grep "Non-2xx\|Socket errors" <<<"$out" >&2
	fi
	awk '/^Requests\/sec:/ { print $2 }' <<<"$out"
}

run_with_recorders() {
	local rps
	e2e_recorders_start || return 1
	rps=$(run_wrk)
	e2e_recorders_stop || return 1
	du -cb "$E2E_DIR"/*.vpr | awk 'END { printf "%d ", $1 }' >>"$E2E_DIR/bytes"
	rm -f "$E2E_DIR"/*.vpr
	echo "$rps"
}

run_wrk >/dev/null || exit 1 # warm-up: caches, nginx's upstream connections
offs=() ons=() ratios=()
printf '%-6s %12s %12s %8s\n' pair "off req/s" "on req/s" ratio
for ((i = 1; i <= PAIRS; i++)); do
	# Alternate which side goes first, so drift over time hits both alike.
	if ((i % 2)); then
		off=$(run_wrk) && on=$(run_with_recorders) || exit 1
	else
		on=$(run_with_recorders) && off=$(run_wrk) || exit 1
	fi
	r=$(awk "BEGIN { printf \"%.3f\", $on / $off }")
	offs+=("$off") ons+=("$on") ratios+=("$r")
	printf '%-6s %12s %12s %8s\n' "$i" "$off" "$on" "$r"
done
stats=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ v[NR] = $1 }
	END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
	      printf "%.3f %.3f %.3f", m, v[1], v[NR] }')
read -r median min max <<<"$stats"
mb=$(awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.1f", s / NF / 1e6 }' \
	"$E2E_DIR/bytes")
echo "realstack: requests/s with recorders on / off: median $median (min $min, max $max)" \
	"over $PAIRS pairs of ${RUN_S} s, $CONNS connections; target >= $TARGET_RATIO;" \
	"recordings ${mb} MB per run (5 hosts)"
