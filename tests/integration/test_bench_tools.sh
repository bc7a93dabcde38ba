#!/usr/bin/env bash
# The recorder benchmark's tools work, so `make bench` keeps measuring what it
# claims: echobench does round trips and reports them (also handing every
# message to a worker pool, which --wakeups records); vprstat's two loss
# counts (the recorder's own and the stream-position gaps) are 0 on a normal
# recording of echobench, and both see the loss when a tiny ring buffer
# forces the recorder to lose records.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
ECHOBENCH=$OUTPUT/tests/echobench
VPRSTAT=$OUTPUT/tests/vprstat

line=$("$ECHOBENCH" -t 4 -d 0.3 -w 0.1)
rts=$(kv roundtrips "$line")
check "echobench does round trips" test "${rts:-0}" -gt 100
check "echobench reports rate, spread and CPU per round trip" \
	test -n "$(kv rt_per_s "$line")" -a -n "$(kv thread_cv "$line")" -a -n "$(kv cpu_us_per_rt "$line")"
line=$("$ECHOBENCH" -t 4 -d 0.5 -w 0.1 -r 2000)
rate=$(kv rt_per_s "$line")
check "echobench --rate paces the load" awk -v r="${rate:-0}" 'BEGIN { exit !(r > 1800 && r < 2200) }'
"$ECHOBENCH" -t 0 >/dev/null 2>&1
check "echobench rejects a bad thread count" test $? -eq 2
"$VPRSTAT" /nonexistent >/dev/null 2>&1
check "vprstat fails on a missing file" test $? -eq 1

need_bpf "vprstat on recordings of echobench"
dir=$(scratch_dir)

# record_echo NAME RECORDER_ARGS... [-- ECHOBENCH_ARGS...]: echobench under
# the recorder; prints vprstat's line.
record_echo() {
	local name=$1 eb rec=() echo=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do rec+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	echo=("$@")
	start_recorder "$dir/$name.vpr" "$dir/$name.log" "${rec[@]}" || return 1
	eb=$("$ECHOBENCH" -t 20 -d 1 -w 0.1 "${echo[@]}") || return 1
	kill -INT "$RECORDER_PID"
	wait "$RECORDER_PID" || return 1
	echo "$eb" >"$dir/$name.eb"
	"$VPRSTAT" --pid "$(kv pid "$eb")" "$dir/$name.vpr"
}

st=$(record_echo normal)
eb=$(cat "$dir/normal.eb" 2>/dev/null)
check "vprstat reads the recording" test "$(kv status "$st")" = ok
check "every measured round trip is four recorded operations (or more: warm-up)" \
	test "$(kv pid_ops "$st")" -ge $((4 * $(kv roundtrips "$eb")))
check "no loss by the recorder's count" test "$(kv lost "$st")" = 0
check "no loss by stream positions" test "$(kv seq_gap_bytes "$st")" = 0
check "the echo writes no wake-up record" test "$(kv wakeup "$st")" = 0

# The hand-off: each message woken over to a worker and back.
st=$(record_echo handoff --wakeups -- -W 4)
eb=$(cat "$dir/handoff.eb" 2>/dev/null)
check "echobench -W hands off: a wake-up record per measured round trip or more" \
	test "$(kv wakeup "$st")" -ge "$(kv roundtrips "$eb")" -a "$(kv roundtrips "$eb")" -gt 100

# A 4 KiB ring cannot hold what 20 busy threads produce between two reads.
st=$(record_echo tiny --ringbuf-size 4096)
lost=$(kv lost "$st") gaps=$(kv seq_gap_bytes "$st")
if [ -z "$lost" ]; then
	not_ok "recording with a tiny ring buffer"
	exit 0
elif [ "$lost" -eq 0 ]; then
	# A machine with idle cores can drain even 4 KiB in time: nothing to compare then.
	skip "stream-position gaps find the recorder's loss" "the recorder kept up with a 4 KiB ring"
	exit 0
fi
# Not equal in general: lost also counts other processes' records and records
# lost at the very end of a stream leave no hole.
check "stream-position gaps find that loss too ($gaps of $lost)" \
	test "${gaps:-0}" -gt 0 -a "${gaps:-0}" -le "${lost:-0}"
