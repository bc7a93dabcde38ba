#!/usr/bin/env bash
# Fault: the recorder stopped (SIGSTOP) for 3 s under load with a small kernel
# ring buffer.  The BPF side must count what it could not deliver, and the
# analysis must mark the requests of that window incomplete, never wrong, and
# leave every request outside it complete.
cd "$(dirname "$0")/../.." || exit 1
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record faults"

ECHOBENCH=$OUTPUT/tests/echobench
VPRSTAT=$OUTPUT/tests/vprstat
STOP_AT=2 STOPPED_S=3 RUN_S=8
# Seconds either side of the stop a loss may still be attributed: the BPF
# side holds up to a batch per CPU, and the reader wakes every ~100 ms.
SLACK_S=1

d=$(scratch_dir)
port=$(free_port)
must_start_recorder "record faults" "$d/rec.vpr" "$d/rec.log" --port "$port" --ringbuf-size 256K
"$ECHOBENCH" -t 10 -r 10000 -d "$RUN_S" -w 0 -P "$port" >"$d/echo.out" 2>"$d/echo.err" &
echo_pid=$!
on_exit "kill -KILL $echo_pid"
on_exit "kill -CONT $RECORDER_PID"
sleep "$STOP_AT"
stop_real=$(date +%s.%N)
kill -STOP "$RECORDER_PID"
sleep "$STOPPED_S"
kill -CONT "$RECORDER_PID"
cont_real=$(date +%s.%N)
wait "$echo_pid"
check "record faults: echobench ran to the end" test $? -eq 0
sleep 0.3
stop_recorder
check "record faults: recorder stops cleanly after SIGSTOP/SIGCONT" test $? -eq 0

st=$("$VPRSTAT" --pid "$(kv pid "$(cat "$d/echo.out")")" "$d/rec.vpr")
lost=$(kv lost "$st") gaps=$(kv seq_gap_bytes "$st")
check "record faults: the loss is counted in the recording ($st)" test "${lost:-0}" -gt 0
check "record faults: nothing missing beyond the counted loss ($gaps <= $lost)" \
	test "${gaps:-1}" -le "${lost:-0}"
check "record faults: the summary reports the loss" grep -qE "records, [1-9][0-9]* lost" "$d/rec.log"

"$VPATH_ANALYZE" table "$d/rec.vpr" >"$d/table.tsv" 2>"$d/analyze.err"
check "record faults: vpath-analyze exits 0" test $? -eq 0
"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>/dev/null
# The table's times are seconds after the earliest record; the header maps
# the recording's monotonic clock to the wall clock the stop was taken on.
read -r window_lo window_hi < <(awk -v s="$stop_real" -v c="$cont_real" -v k="$SLACK_S" '
	$1 == "header" { for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "start_mono") mono = kv[2]; if (kv[1] == "start_real") real = kv[2] } }
	{ for (i = 2; i <= NF; i++) if ($i ~ /^ts=/) { t = substr($i, 4) + 0; if (!min || t < min) min = t } }
	END { base = (mono - min) / 1e9 - real; printf "%.3f %.3f\n", s + base - k, c + base + k }' "$d/dump.txt")
requests=$(awk -F'\t' 'NR > 1' "$d/table.tsv" | wc -l)
awk -F'\t' 'NR > 1 && $9 != "yes" { print $4, $5 }' "$d/table.tsv" >"$d/incomplete.txt"
incomplete=$(wc -l <"$d/incomplete.txt")
outside=$(awk -v lo="$window_lo" -v hi="$window_hi" '$2 < lo || $1 > hi' "$d/incomplete.txt" | wc -l)
check "record faults: requests in the stopped window marked incomplete ($incomplete of $requests)" \
	test "$incomplete" -gt 0
check "record faults: no request outside [$window_lo, $window_hi] s incomplete ($outside)" test "$outside" -eq 0
check "record faults: most requests complete ($incomplete of $requests incomplete)" \
	test "$requests" -gt $((2 * incomplete))
# An echo round trip is one call on one host: a request built from pieces of
# several round trips around the lost stretch would have more.
wrong=$(awk -F'\t' 'NR > 1 && ($7 != 1 || $8 != 1)' "$d/table.tsv" | wc -l)
check "record faults: every request is one call on one host ($wrong are not)" test "$wrong" -eq 0
