#!/usr/bin/env bash
# Recorder builds compared in one run: the echo worst case of recorder.sh
# (1-byte round trips over loopback, 50 client threads saturating the CPU)
# with the recorder off and under each build in turn, in rounds whose order
# rotates, so that a busy spell of the machine hits every build alike.  For
# each build: throughput on/off (median, min, max over rounds), on over the
# first build's on in the same round, records lost and gaps, the recorder's
# own CPU (median, % of one core), and the BPF
# programs' mean cost per run (kernel.bpf_stats_enabled, runs of their own
# after the rounds, builds interleaved).  docs/bench.md says how to build
# older commits for it.
#
# Environment: RECORDERS ("NAME=PATH ...", the vpath-record binaries; the
# first is the one the others are compared with), ROUNDS (6), RUN_S (5
# seconds per run), THREADS (50), STATS_ROUNDS (2, 0 to skip), STATS_S (3),
# REC_ARGS (options given to every build, e.g. --wakeups).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/bench/lib/recorder.sh

RECORDERS=${RECORDERS:-}
ROUNDS=${ROUNDS:-6}
RUN_S=${RUN_S:-5}
THREADS=${THREADS:-50}
STATS_ROUNDS=${STATS_ROUNDS:-2}
STATS_S=${STATS_S:-3}
read -r -a rec_args <<<"${REC_ARGS:-}"
WARMUP_S=0.5
ECHOBENCH=$OUTPUT/tests/echobench
VPRSTAT=$OUTPUT/tests/vprstat

if [ -z "$RECORDERS" ]; then
	echo "recorder comparison skipped: RECORDERS names no builds (\"old=DIR/vpath-record new=...\", docs/bench.md)"
	exit 0
fi
why=$(bpf_unavailable)
if [ -n "$why" ]; then
	echo "recorder comparison skipped: $why"
	exit 0
fi
names=() bins=()
for nb in $RECORDERS; do
	names+=("${nb%%=*}") bins+=("${nb#*=}")
	if [ "${nb%%=*}" = "$nb" ] || [ ! -x "${nb#*=}" ]; then
		echo "recorder comparison: '$nb' is not NAME=PATH of an executable vpath-record" >&2
		exit 1
	fi
done
bench_scratch "recorder comparison" "$ECHOBENCH" "$VPRSTAT"

echo_run() { "$ECHOBENCH" -t "$THREADS" -w "$WARMUP_S" -d "$RUN_S"; }

# run_build I: echobench under build I; prints its round trips/s, lost,
# gaps and the recorder's own CPU (% of one core) during the run.
run_build() {
	local i=$1 line st c0 c1 t0 t1
	REC_BIN=${bins[$i]} start_recorder "$dir/b$i.vpr" "${rec_args[@]}" || return 1
	c0=$(cpu_ticks "$rec_pid") t0=$(date +%s.%N)
	line=$(echo_run)
	c1=$(cpu_ticks "$rec_pid") t1=$(date +%s.%N)
	if ! stop_recorder || [ -z "$line" ]; then
		echo "recorder comparison: build ${names[$i]} failed:" >&2
		cat "$dir/b$i.vpr.err" >&2
		return 1
	fi
	st=$("$VPRSTAT" --pid "$(kv pid "$line")" "$dir/b$i.vpr" 2>/dev/null) || st="lost=? seq_gap_bytes=?"
	rm -f "$dir/b$i.vpr"
	echo "$(kv rt_per_s "$line") $(kv lost "$st") $(kv seq_gap_bytes "$st")" \
		"$(calc "($c1 - $c0) * 100 / $(getconf CLK_TCK) / ($t1 - $t0)")"
}

n=${#names[@]}
echo "vpath recorder comparison: echobench $THREADS threads, 1-byte round trips over loopback"
echo "$(date -u '+%Y-%m-%d %H:%M'), $(nproc) CPUs, kernel $(uname -r), $ROUNDS rounds of $RUN_S s," \
	"recorder options: ${rec_args[*]:-none}"
for i in $(seq 0 $((n - 1))); do echo "  ${names[$i]}: ${bins[$i]}"; done
echo
printf '%-5s %-12s %10s %7s %9s %6s %6s %8s\n' round run "rt/s" on/off "/${names[0]}" lost gaps "rec CPU%"
declare -A ratio vs_first lost gaps rcpu
for r in $(seq "$ROUNDS"); do
	# Slot 0 is "off", slot i+1 build i; each round starts one slot later.
	declare -A rt=()
	for k in $(seq 0 "$n"); do
		slot=$(((k + r - 1) % (n + 1)))
		if [ "$slot" -eq 0 ]; then
			rt[off]=$(kv rt_per_s "$(echo_run)") || exit 1
			[ -n "${rt[off]}" ] || { echo "recorder comparison: echobench failed" >&2; exit 1; }
		else
			i=$((slot - 1))
			read -r rt[$i] l g c <<<"$(run_build $i)"
			[ -n "${rt[$i]:-}" ] || exit 1
			lost[$i]="${lost[$i]:-} $l" gaps[$i]="${gaps[$i]:-} $g" rcpu[$i]="${rcpu[$i]:-} $c"
		fi
	done
	printf '%-5s %-12s %10.0f\n' "$r" off "${rt[off]}"
	for i in $(seq 0 $((n - 1))); do
		q=$(calc "${rt[$i]} / ${rt[off]}") f=$(calc "${rt[$i]} / ${rt[0]}")
		ratio[$i]="${ratio[$i]:-} $q" vs_first[$i]="${vs_first[$i]:-} $f"
		printf '%-5s %-12s %10.0f %7.3f %9.3f %6s %6s %8.1f\n' "$r" "${names[$i]}" "${rt[$i]}" "$q" "$f" \
			"$(echo ${lost[$i]} | awk '{ print $NF }')" "$(echo ${gaps[$i]} | awk '{ print $NF }')" \
			"$(echo ${rcpu[$i]} | awk '{ print $NF }')"
	done
	unset rt
done

# bpf_costs I: the send and receive programs' ns per run under build I, one flat-out run.
bpf_costs() {
	local i=$1 rows
	REC_BIN=${bins[$i]} start_recorder "$dir/s$i.vpr" "${rec_args[@]}" || return 1
	"$ECHOBENCH" -t "$THREADS" -d "$STATS_S" >/dev/null
	rows=$(bpf_prog_costs "$rec_pid")
	stop_recorder
	rm -f "$dir/s$i.vpr"
	echo "$(awk '$1 == "sock_send_length" { print $3 }' <<<"$rows")" \
		"$(awk '$1 == "sock_recv_length" { print $3 }' <<<"$rows")"
}
declare -A send_ns recv_ns
if [ "$STATS_ROUNDS" -gt 0 ] && command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	bpf_stats_on
	for r in $(seq "$STATS_ROUNDS"); do
		for k in $(seq 0 $((n - 1))); do
			i=$(((k + r - 1) % n))
			read -r s v <<<"$(bpf_costs "$i")"
			send_ns[$i]="${send_ns[$i]:-} ${s:-0}" recv_ns[$i]="${recv_ns[$i]:-} ${v:-0}"
		done
	done
fi

echo
echo "summary ($ROUNDS rounds; medians, with min and max)"
printf '  %-12s %-22s %-22s %9s %9s %16s %16s\n' build "on/off" "on/${names[0]}" "lost,gaps" \
	"rec CPU%" "send ns/run" "recv ns/run"
for i in $(seq 0 $((n - 1))); do
	read -r qm qn qx <<<"$(stats ${ratio[$i]})"
	read -r fm fn fx <<<"$(stats ${vs_first[$i]})"
	sl=$(echo ${lost[$i]} | awk '{ for (i = 1; i <= NF; i++) s += $i; print ($0 ~ /\?/ ? "?" : s + 0) }')
	sg=$(echo ${gaps[$i]} | awk '{ for (i = 1; i <= NF; i++) s += $i; print ($0 ~ /\?/ ? "?" : s + 0) }')
	sn=- rn=-
	if [ -n "${send_ns[$i]:-}" ]; then
		sn=$(stats ${send_ns[$i]} | awk '{ printf "%.0f (%.0f-%.0f)", $1, $2, $3 }')
		rn=$(stats ${recv_ns[$i]} | awk '{ printf "%.0f (%.0f-%.0f)", $1, $2, $3 }')
	fi
	printf '  %-12s %-22s %-22s %9s %9.1f %16s %16s\n' "${names[$i]}" "$qm ($qn-$qx)" "$fm ($fn-$fx)" \
		"$sl,$sg" "$(stats ${rcpu[$i]} | awk '{ print $1 }')" "$sn" "$rn"
done
[ -n "${send_ns[0]:-}" ] &&
	echo "  (ns/run: median of $STATS_ROUNDS flat-out runs of $STATS_S s each, bpf_stats' own ~60 ns included)"
exit 0
