#!/usr/bin/env bash
# Stopping the recorder: SIGTERM stops it cleanly like SIGINT; a second
# signal while it is still writing out what it holds exits at once, leaving
# a file that is valid up to its last complete block.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record signals"
VPRSTAT=$OUTPUT/tests/vprstat
d=$(scratch_dir)

must_start_recorder "record signals" "$d/term.vpr" "$d/term.log"
kill -TERM "$RECORDER_PID"
wait "$RECORDER_PID"
check "SIGTERM stops cleanly (exit 0)" test $? -eq 0
check "SIGTERM: summary printed" grep -q "records, 0 lost" "$d/term.log"

# A backlog to write out: the recorder is stopped while the ring fills up.
must_start_recorder "record signals" "$d/twice.vpr" "$d/twice.log" --ringbuf-size 256M
kill -STOP "$RECORDER_PID"
"$OUTPUT/tests/echobench" -t 20 -d 3 >/dev/null
kill -INT "$RECORDER_PID"
t0=$(date +%s%N)
kill -CONT "$RECORDER_PID"
sleep 0.02
kill -INT "$RECORDER_PID"
wait "$RECORDER_PID"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 0 ] && [ "$ms" -lt 20 ]; then
	skip "a second signal exits at once" "the recorder wrote out its backlog within $ms ms"
else
	check "a second signal exits at once (exit $rc, 130 expected)" test "$rc" -eq 130
	check "no summary after the second signal" test "$(grep -c "records," "$d/twice.log")" -eq 0
	st=$("$VPRSTAT" "$d/twice.vpr" 2>/dev/null)
	check "the file is valid up to its last complete block (${st%% blocks*})" \
		test $? -eq 0 -a -n "$st"
fi
