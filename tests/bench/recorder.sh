#!/usr/bin/env bash
# Recorder overhead benchmark: the vPath paper's worst case (§4.2), a 1-byte
# echo over loopback with 50 client threads saturating the CPU, run with the
# recorder off and on in interleaved pairs, so that machine noise (other
# builds, frequency changes) hits both sides alike.  Reports the throughput
# ratio on/off (median of pairs, min, max), what the recorder wrote and lost,
# its own CPU and wake-ups, the highest record rate kept with zero loss, the
# ratio with --force-fallback, and the BPF programs' cost per event.
# docs/bench.md explains every column.
#
# Environment: PAIRS (5), RUN_S (5 seconds per run), THREADS (50),
# FALLBACK_PAIRS (3, 0 to skip), NOWAKE_PAIRS (3, 0 to skip: pairs with
# --wakeups, so that the cost of recording wake-ups is the difference of
# two ratios of one run), CAPTURE_PAIRS (3, 0 to skip: --capture 256 on the
# echo port, every operation's first bytes stored), HANDOFF_PAIRS (3, 0 to
# skip: the echo server hands every message to a pool of 4 threads over a
# condition variable, two futex wake-ups per round trip; pairs without and
# with --wakeups), STEP_S (3 seconds per load step),
# FLOOR_PAIRS (3, 0 to skip: pairs of echobench alone and under two empty
# programs on the recorder's socket tracepoints, tests/bench/tpfloor.bpf.c:
# the share of the cost that any program there pays, which vpath's
# programs cannot win back), BPF_STATS (1: measure per-program cost with
# kernel.bpf_stats_enabled; the empty programs are measured beside them).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/record_helpers.sh # free_port
. tests/bench/lib/recorder.sh

PAIRS=${PAIRS:-5}
RUN_S=${RUN_S:-5}
THREADS=${THREADS:-50}
FALLBACK_PAIRS=${FALLBACK_PAIRS:-3}
NOWAKE_PAIRS=${NOWAKE_PAIRS:-3}
CAPTURE_PAIRS=${CAPTURE_PAIRS:-3}
HANDOFF_PAIRS=${HANDOFF_PAIRS:-3}
FLOOR_PAIRS=${FLOOR_PAIRS:-3}
STEP_S=${STEP_S:-3}
WARMUP_S=0.5 # echobench's traffic before its measured window
BPF_STATS=${BPF_STATS:-1}
ECHOBENCH=$OUTPUT/tests/echobench
VPRSTAT=$OUTPUT/tests/vprstat
TPFLOOR=$OUTPUT/tests/tpfloor
TARGET_RATIO=0.95
CLK_TCK=$(getconf CLK_TCK)

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	echo "recorder benchmark skipped: $why"
	exit 0
fi
bench_scratch "recorder benchmark" "$VPATH_RECORD" "$ECHOBENCH" "$VPRSTAT" "$TPFLOOR"

# run_off: echobench alone; prints its line.
run_off() { "$ECHOBENCH" -t "$THREADS" -w "$WARMUP_S" -d "$RUN_S" "${pair_echo_args[@]}" "$@"; }
pair_echo_args=() # echobench options of both sides of a pair (a fixed port)

# run_on NAME RECORDER_ARGS -- ECHOBENCH_ARGS: echobench under the recorder.
# Prints the echobench line followed by the recorder's figures as key=value.
run_on() {
	local name=$1 rec_args=() echo_args=() line c0 c1 w0 w1 t0 t1 rc st size recs
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do rec_args+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	echo_args=("$@")
	start_recorder "$dir/$name.vpr" "${rec_args[@]}" || return 1
	c0=$(cpu_ticks "$rec_pid") w0=$(ctx_switches "$rec_pid") t0=$(date +%s.%N)
	line=$("$ECHOBENCH" -t "$THREADS" -w "$WARMUP_S" "${echo_args[@]}")
	c1=$(cpu_ticks "$rec_pid") w1=$(ctx_switches "$rec_pid") t1=$(date +%s.%N)
	stop_recorder
	rc=$?
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "recorder benchmark: run $name failed (recorder status $rc):" >&2
		cat "$dir/$name.vpr.err" >&2
		return 1
	fi
	st=$("$VPRSTAT" --pid "$(kv pid "$line")" "$dir/$name.vpr") || return 1
	size=$(stat -c %s "$dir/$name.vpr")
	recs=$(kv records "$st")
	echo "$line $st file_bytes=$size" \
		"bytes_per_record=$(calc "$size / ($recs > 0 ? $recs : 1)")" \
		"records_per_s=$(calc "$(kv pid_ops "$st") / ($(kv seconds "$line") + $WARMUP_S)")" \
		"wakeup_per_s=$(calc "$(kv wakeup "$st") / ($(kv seconds "$line") + $WARMUP_S)")" \
		"rec_cpu_pct=$(calc "($c1 - $c0) * 100 / $CLK_TCK / ($t1 - $t0)")" \
		"wakeups_per_s=$(calc "($w1 - $w0) / ($t1 - $t0)")" \
		"rec_cpu_us_per_rt=$(calc "($c1 - $c0) * 1e6 / $CLK_TCK / ($(kv pid_ops "$st") / 4 + 1)")"
	rm -f "$dir/$name.vpr"
}

# pairs LABEL N RECORDER_ARGS...: N interleaved off/on pairs, alternating
# which side runs first; prints one table row per pair and fills ratios[],
# cpu_ratios[] and on_lines[].
ratios=() cpu_ratios=() on_lines=() off_rts=()
pairs() {
	local label=$1 n=$2 i off on r cr
	shift 2
	ratios=() cpu_ratios=() on_lines=() off_rts=()
	for i in $(seq "$n"); do
		if [ $((i % 2)) -eq 1 ]; then
			off=$(run_off) || return 1
			on=$(run_on "$label$i" "$@" -- -d "$RUN_S" "${pair_echo_args[@]}") || return 1
		else
			on=$(run_on "$label$i" "$@" -- -d "$RUN_S" "${pair_echo_args[@]}") || return 1
			off=$(run_off) || return 1
		fi
		r=$(calc "$(kv rt_per_s "$on") / $(kv rt_per_s "$off")")
		# CPU per round trip, the recorder's own included, off over on.
		cr=$(calc "$(kv cpu_us_per_rt "$off") / ($(kv cpu_us_per_rt "$on") + $(kv rec_cpu_us_per_rt "$on"))")
		ratios+=("$r") cpu_ratios+=("$cr") on_lines+=("$on") off_rts+=("$(kv rt_per_s "$off")")
		printf '%-4s %-9s %10.0f %10.0f %6.3f %6.3f %10.0f %6s %6s %7.1f %9.0f\n' \
			"$i" "$label" "$(kv rt_per_s "$off")" "$(kv rt_per_s "$on")" "$r" "$cr" \
			"$(kv records_per_s "$on")" "$(kv lost "$on")" "$(kv seq_gap_bytes "$on")" \
			"$(kv rec_cpu_pct "$on")" "$(kv wakeups_per_s "$on")"
	done
}

# start_floor: tpfloor's empty programs attached (floor_pid set), or 1.
start_floor() {
	local i
	"$TPFLOOR" >"$dir/floor.out" 2>&1 &
	floor_pid=$!
	echo "$floor_pid" >"$dir/recorder.pid"
	for i in $(seq 100); do
		grep -q '^attached' "$dir/floor.out" && return 0
		kill -0 "$floor_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "recorder benchmark: tpfloor did not attach:" >&2
	cat "$dir/floor.out" >&2
	stop_floor
	return 1
}
stop_floor() {
	kill -INT "$floor_pid" 2>/dev/null
	wait "$floor_pid" 2>/dev/null
	rm -f "$dir/recorder.pid"
}

# floor_pairs N: N interleaved pairs of echobench alone and under the empty
# programs, alternating which runs first; prints a row per pair and fills
# floor_ratios[].
floor_ratios=()
floor_pairs() {
	local i off on r
	for i in $(seq "$1"); do
		if [ $((i % 2)) -eq 1 ]; then
			off=$(run_off) || return 1
			start_floor || return 1
			on=$(run_off)
			stop_floor
		else
			start_floor || return 1
			on=$(run_off)
			stop_floor
			off=$(run_off) || return 1
		fi
		[ -n "$on" ] || return 1
		r=$(calc "$(kv rt_per_s "$on") / $(kv rt_per_s "$off")")
		floor_ratios+=("$r")
		printf '%-4s %-9s %10.0f %10.0f %6.3f\n' "$i" floor "$(kv rt_per_s "$off")" \
			"$(kv rt_per_s "$on")" "$r"
	done
}

# sum_key KEY LINES...: sum of KEY over the lines.
sum_key() {
	local key=$1 s=0 l
	shift
	for l in "$@"; do s=$((s + $(kv "$key" "$l"))); done
	echo "$s"
}
# mean_key KEY LINES...
mean_key() {
	local key=$1 l vals=()
	shift
	for l in "$@"; do vals+=("$(kv "$key" "$l")"); done
	printf '%s\n' "${vals[@]}" | awk '{ s += $1 } END { printf "%.1f", s / NR }'
}

# Other BPF programs on the socket hooks (another recorder, a test) slow
# both sides of every pair and blur the ratio: say so.
foreign=$(bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
print(sum(1 for p in json.load(sys.stdin) if p.get("name") in ("sock_send_length", "sock_recv_length")))
' 2>/dev/null || echo 0)
echo "vpath recorder benchmark: echobench $THREADS threads, 1-byte round trips over loopback"
echo "$(date -u +%Y-%m-%d), $(nproc) CPUs, kernel $(uname -r), $PAIRS pairs of $RUN_S s"
[ "${foreign:-0}" -gt 0 ] &&
	echo "warning: $foreign other BPF programs are attached to the socket tracepoints: figures are noisy"
echo
printf '%-4s %-9s %10s %10s %6s %6s %10s %6s %6s %7s %9s\n' pair mode "off rt/s" "on rt/s" ratio \
	"cpu" "records/s" lost gaps "rec CPU%" "wakeups/s"
pairs ringbuf "$PAIRS" || exit 1
main_ratios=("${ratios[@]}") main_cpu_ratios=("${cpu_ratios[@]}") main_lines=("${on_lines[@]}") main_off=("${off_rts[@]}")

if [ "$FLOOR_PAIRS" -gt 0 ]; then
	floor_pairs "$FLOOR_PAIRS" || { floor_ratios=(); echo "(the floor runs failed; see above)"; }
fi

fb_ratios=()
# --force-fallback is a hidden option: argp accepts it before --usage only if it exists.
if [ "$FALLBACK_PAIRS" -gt 0 ] && "$VPATH_RECORD" --force-fallback --usage >/dev/null 2>&1; then
	if pairs fallback "$FALLBACK_PAIRS" --force-fallback; then
		fb_ratios=("${ratios[@]}") fb_cpu_ratios=("${cpu_ratios[@]}")
		fb_lines=("${on_lines[@]}")
	else
		echo "(the fallback runs failed; see above)"
	fi
fi

nw_ratios=()
if [ "$NOWAKE_PAIRS" -gt 0 ] && "$VPATH_RECORD" --wakeups --usage >/dev/null 2>&1; then
	if pairs wakeups "$NOWAKE_PAIRS" --wakeups; then
		nw_ratios=("${ratios[@]}")
	else
		echo "(the --wakeups runs failed; see above)"
	fi
fi

# Payload capture on the echo port: the uncaptured path is the ring buffer
# pairs above; this is the cost when every operation is captured.
cap_ratios=()
if [ "$CAPTURE_PAIRS" -gt 0 ]; then
	pair_echo_args=(-P "$(free_port)")
	if pairs capture "$CAPTURE_PAIRS" --capture 256 --capture-port "${pair_echo_args[1]}"; then
		cap_ratios=("${ratios[@]}") cap_cpu_ratios=("${cpu_ratios[@]}") cap_lines=("${on_lines[@]}")
	else
		echo "(the capture runs failed; see above)"
	fi
	pair_echo_args=()
fi

# The echo worst case writes no wake-up record (one thread per connection):
# a hand-off to a worker pool does, two per round trip.  The same workload
# recorded without and with --wakeups, so their two ratios come from one run.
ho_ratios=() hw_ratios=()
if [ "$HANDOFF_PAIRS" -gt 0 ] && "$VPATH_RECORD" --wakeups --usage >/dev/null 2>&1; then
	pair_echo_args=(-W 4)
	if pairs handoff "$HANDOFF_PAIRS"; then
		ho_ratios=("${ratios[@]}") ho_lines=("${on_lines[@]}")
		if pairs handoff+wk "$HANDOFF_PAIRS" --wakeups; then
			hw_ratios=("${ratios[@]}") hw_lines=("${on_lines[@]}")
		fi
	fi
	[ ${#hw_ratios[@]} -gt 0 ] || echo "(the hand-off runs failed; see above)"
	pair_echo_args=()
fi

# Highest record rate written with zero loss: offer a growing share of the
# unrecorded maximum, ending flat out.
max_off=$(stats "${main_off[@]}" | awk '{ print $3 }')
echo
printf '%-14s %12s %12s %6s %6s\n' "offered rt/s" "achieved" "records/s" lost gaps
best=0
for share in 0.25 0.5 0.75 0.9 0; do
	rate=$(calc "$max_off * $share")
	line=$(run_on "step$share" -- -d "$STEP_S" -r "$rate") || exit 1
	lost=$(kv lost "$line") gaps=$(kv seq_gap_bytes "$line")
	printf '%-14s %12.0f %12.0f %6s %6s\n' \
		"$([ "$share" = 0 ] && echo "flat out" || printf '%.0f' "$rate")" \
		"$(kv rt_per_s "$line")" "$(kv records_per_s "$line")" "$lost" "$gaps"
	if [ "$lost" -eq 0 ] && [ "$gaps" -eq 0 ]; then
		best=$(awk -v a="$best" -v b="$(kv records_per_s "$line")" 'BEGIN { print (b > a ? b : a) }')
	fi
done

bpf_rows=""
if [ "$BPF_STATS" = 1 ] && command -v bpftool >/dev/null && command -v python3 >/dev/null; then
	bpf_stats_on
	# With wake-ups recorded, so that their program's cost shows: on the
	# echo (it runs and filters out every wake-up) and on the hand-off
	# (where it writes one record per futex wake-up).
	stats_rec=()
	"$VPATH_RECORD" --wakeups --usage >/dev/null 2>&1 && stats_rec=(--wakeups)
	start_recorder "$dir/stats.vpr" "${stats_rec[@]}" || exit 1
	stats_echo=$("$ECHOBENCH" -t "$THREADS" -d "$STEP_S")
	stats_ho=
	[ ${#stats_rec[@]} -gt 0 ] && stats_ho=$("$ECHOBENCH" -t "$THREADS" -d "$STEP_S" -W 4)
	bpf_rows=$(bpf_prog_costs "$rec_pid")
	stop_recorder
	# The empty programs alone, on the same flat-out echo.
	if start_floor; then
		"$ECHOBENCH" -t "$THREADS" -d "$STEP_S" >/dev/null
		floor_rows=$(bpf_prog_costs "$floor_pid")
		stop_floor
		[ -n "$floor_rows" ] && bpf_rows+=$'\n'"$floor_rows"
	fi
fi

read -r med min max <<<"$(stats "${main_ratios[@]}")"
echo
echo "summary"
printf '  throughput ratio on/off (ring buffer):  median %s  (min %s, max %s)  target >= %s: %s\n' \
	"$med" "$min" "$max" "$TARGET_RATIO" \
	"$(awk -v m="$med" -v t="$TARGET_RATIO" 'BEGIN { print (m >= t ? "met" : "NOT met") }')"
read -r cmed cmin cmax <<<"$(stats "${main_cpu_ratios[@]}")"
printf '  CPU-cost ratio off/on (ring buffer):    median %s  (min %s, max %s)\n' "$cmed" "$cmin" "$cmax"
if [ ${#floor_ratios[@]} -gt 0 ]; then
	read -r lmed lmin lmax <<<"$(stats "${floor_ratios[@]}")"
	printf '  throughput ratio empty programs/off:    median %s  (min %s, max %s); the recorder beyond them: %s\n' \
		"$lmed" "$lmin" "$lmax" "$(calc "$med / $lmed")"
fi
if [ ${#fb_ratios[@]} -gt 0 ]; then
	read -r fmed fmin fmax <<<"$(stats "${fb_ratios[@]}")"
	printf '  throughput ratio on/off (fallback):     median %s  (min %s, max %s)\n' \
		"$fmed" "$fmin" "$fmax"
	read -r fmed fmin fmax <<<"$(stats "${fb_cpu_ratios[@]}")"
	printf '  CPU-cost ratio off/on (fallback):       median %s  (min %s, max %s)\n' \
		"$fmed" "$fmin" "$fmax"
	printf '  fallback lost / gaps:                   %s / %s\n' \
		"$(sum_key lost "${fb_lines[@]}")" "$(sum_key seq_gap_bytes "${fb_lines[@]}")"
fi
if [ ${#nw_ratios[@]} -gt 0 ]; then
	read -r wmed wmin wmax <<<"$(stats "${nw_ratios[@]}")"
	printf '  throughput ratio on/off (--wakeups):    median %s  (min %s, max %s); with wake-ups / without: %s\n' \
		"$wmed" "$wmin" "$wmax" "$(calc "$wmed / $med")"
fi
if [ ${#hw_ratios[@]} -gt 0 ]; then
	read -r hmed hmin hmax <<<"$(stats "${ho_ratios[@]}")"
	printf '  hand-off (-W 4) ratio on/off:           median %s  (min %s, max %s); lost %s\n' \
		"$hmed" "$hmin" "$hmax" "$(sum_key lost "${ho_lines[@]}")"
	read -r wmed wmin wmax <<<"$(stats "${hw_ratios[@]}")"
	printf '  hand-off ratio on/off (--wakeups):      median %s  (min %s, max %s); lost %s\n' \
		"$wmed" "$wmin" "$wmax" "$(sum_key lost "${hw_lines[@]}")"
	printf '  hand-off with wake-ups / without:       %s; wake-up records/s %s\n' \
		"$(calc "$wmed / $hmed")" \
		"$(mean_key wakeup_per_s "${hw_lines[@]}")"
fi
if [ ${#cap_ratios[@]} -gt 0 ]; then
	read -r pmed pmin pmax <<<"$(stats "${cap_ratios[@]}")"
	printf '  throughput ratio on/off (--capture 256): median %s  (min %s, max %s)\n' \
		"$pmed" "$pmin" "$pmax"
	read -r pmed pmin pmax <<<"$(stats "${cap_cpu_ratios[@]}")"
	printf '  CPU-cost ratio off/on (--capture 256):  median %s  (min %s, max %s)\n' "$pmed" "$pmin" "$pmax"
	printf '  capture lost / gaps / bytes per record: %s / %s / %s\n' \
		"$(sum_key lost "${cap_lines[@]}")" "$(sum_key seq_gap_bytes "${cap_lines[@]}")" \
		"$(mean_key bytes_per_record "${cap_lines[@]}")"
fi
printf '  records/s written (mean of on runs):    %s\n' "$(mean_key records_per_s "${main_lines[@]}")"
printf '  lost (recorder) / gaps (stream check):  %s / %s\n' \
	"$(sum_key lost "${main_lines[@]}")" "$(sum_key seq_gap_bytes "${main_lines[@]}")"
printf '  recorder CPU (%% of one core):           %s\n' "$(mean_key rec_cpu_pct "${main_lines[@]}")"
printf '  recorder wake-ups/s:                    %s\n' "$(mean_key wakeups_per_s "${main_lines[@]}")"
printf '  bytes per record (file):                %s\n' "$(mean_key bytes_per_record "${main_lines[@]}")"
printf '  highest zero-loss record rate:          %.0f records/s\n' "$best"
printf '  recorder summary (last on run):         %s\n' \
	"$(tail -n 1 "$dir/ringbuf$PAIRS.vpr.err")"
if [ -n "$bpf_rows" ]; then
	echo
	echo "BPF programs (kernel.bpf_stats_enabled, ${stats_rec[*]:-no wake-ups}: one flat-out run of $STEP_S s," \
		"$(kv roundtrips "$stats_echo") round trips${stats_ho:+, then one with -W 4, $(kv roundtrips "$stats_ho") round trips})"
	echo "(floor_send and floor_recv: the empty programs of tests/bench/tpfloor.bpf.c, on a flat-out run of their own)"
	printf '  %-24s %12s %8s\n' program runs ns/run
	sed 's/^/  /' <<<"$bpf_rows"
fi
