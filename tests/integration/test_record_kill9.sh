#!/usr/bin/env bash
# kill -9 of the recorder under traffic: the file stays readable up to its
# last complete block (torn tail at worst), and since blocks are flushed every
# second, what it holds reaches to about a second before the kill.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record kill -9"

d=$(scratch_dir)
port=$(free_port)
must_start_recorder "record kill -9" "$d/rec.vpr" "$d/rec.log" --port "$port"
start_traffic "$d" "$port" 300
sleep 3.5
disown "$RECORDER_PID" # no "Killed" job report
kill -KILL "$RECORDER_PID"
killed_at=$(date +%s.%N)
for _ in $(seq 100); do kill -0 "$RECORDER_PID" 2>/dev/null || break; sleep 0.05; done
"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>"$d/dump.err"
check "record kill -9: file readable (ok or torn tail, not corrupt)" \
	grep -qE "^status  (ok|torn tail)" "$d/dump.txt"
ops=$(grep -c "^sock_op" "$d/dump.txt")
check "record kill -9: operations survived ($ops)" test "$ops" -gt 100
# Wall-clock time of the last operation, from the nearest clock record before it.
last=$(awk '$1 == "clock" { split($2, t, "="); split($4, r, "="); mono = t[2]; real = r[2] }
	$1 == "sock_op" && mono { split($2, t, "="); last = real + (t[2] - mono) / 1e9 }
	END { printf "%.3f", last }' "$d/dump.txt")
gap=$(awk -v a="$killed_at" -v b="$last" 'BEGIN { printf "%.3f", a - b }')
check "record kill -9: at most ~1 s lost before the kill (gap ${gap}s)" \
	awk -v g="$gap" 'BEGIN { exit !(g >= 0 && g < 2.0) }'
