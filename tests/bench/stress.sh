#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vApp under stress, end to end: 4 tiers, 12 servers on their own
# network-namespace hosts, 128 concurrent sessions.  Runs the client with
# the recorders off and on in interleaved pairs (fresh servers each run, so
# machine noise hits both sides alike), reports the throughput ratio on/off,
# what the recorders lost, and for every recorded run the accuracy table
# (completeness and accuracy against the client's ground truth).
#
# Environment: PAIRS (3), RUN_S (10 seconds per run), SESSIONS (128), SEED;
# KEEP=DIR keeps a pair's recordings, truth and comparison in DIR/pair<N>
# when its paths are not all right (the run's own files go with it).
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

PAIRS=${PAIRS:-3}
RUN_S=${RUN_S:-10}
SESSIONS=${SESSIONS:-128}
SEED=${SEED:-$RANDOM}

why=$(e2e_unavailable)
if [ -n "$why" ]; then
	echo "stress benchmark skipped: $why"
	exit 0
fi
e2e_setup tests/e2e/scenarios/stress.conf || exit 1
echo "# ${#E2E_SERVERS[@]} servers on ${#E2E_HOSTS[@]} hosts, $SESSIONS sessions," \
	"$PAIRS pairs of ${RUN_S} s runs, seed $SEED"

# One run; prints the client's throughput.  With "on", records every host.
one_run() { # off|on pair
	rm -f "$E2E_DIR"/*.vpr
	if [ "$1" = on ]; then
		e2e_recorders_start || return 1
	fi
	e2e_servers_start || return 1
	e2e_client_run --sessions "$SESSIONS" --duration "$RUN_S" --seed "$((SEED + $2))" ||
		return 1
	e2e_servers_stop
	if [ "$1" = on ]; then
		e2e_recorders_stop || return 1
	fi
	e2e_client_stat throughput
}

# Records lost, summed over the hosts' recorder logs ("N records, M lost").
recorder_losses() {
	cat "$E2E_DIR"/*.record.log | sed -n 's/.* \([0-9][0-9]*\) lost.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

status=0
ratios=()
printf '%-6s %14s %14s %8s %10s %10s\n' pair "off req/s" "on req/s" ratio lost accuracy
for ((p = 1; p <= PAIRS; p++)); do
	off=$(one_run off "$p") || { echo "run failed"; exit 1; }
	on=$(one_run on "$p") || { echo "run failed"; exit 1; }
	lost=$(recorder_losses)
	verdict=ok
	if ! e2e_analyze; then
		verdict="analyzer-failed"
		status=1
	elif ! e2e_compare --label "pair $p" >"$E2E_DIR/compare.$p.txt"; then
		verdict=WRONG # a measurement: the table says how wrong
	fi
	if [ "$verdict" != ok ] && [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP/pair$p" && cp "$E2E_DIR"/*.vpr "$E2E_DIR"/*.log "$E2E_DIR"/*.json* \
			"$E2E_DIR/compare.$p.txt" "$KEEP/pair$p/" 2>/dev/null
		echo "# pair $p kept in $KEEP/pair$p"
	fi
	ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	ratios+=("$ratio")
	printf '%-6s %14s %14s %8s %10s %10s\n' "$p" "$off" "$on" "$ratio" "$lost" "$verdict"
done
echo
echo "throughput ratio on/off: median $(printf '%s\n' "${ratios[@]}" | sort -n |
	awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')," \
	"min $(printf '%s\n' "${ratios[@]}" | sort -n | head -1)," \
	"max $(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)"
echo
echo "accuracy of the last recorded run:"
cat "$E2E_DIR/compare.$PAIRS.txt" 2>/dev/null
exit $status
