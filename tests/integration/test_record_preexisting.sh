#!/usr/bin/env bash
# A connection opened before the recorder started is still identified: a
# preexisting conn record with its 4-tuple, role and the cookie the later
# operations carry; thread names come from the /proc snapshot.  Also covers
# the pid filter (-p).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record preexisting"

d=$(scratch_dir)
port=$(free_port)
rounds=12
check "record preexisting: connection is up before recording" connect_and_wait "$d" "$port" "$rounds"
spid=$SERVER_PID cpid=$CLIENT_PID
must_start_recorder "record preexisting" "$d/rec.vpr" "$d/rec.log" -p "$spid" -p "$cpid"
touch "$d/go"
wait "$cpid"
check "record preexisting: exchange completes" test $? -eq 0
wait "$spid"
stop_recorder
check "record preexisting: recorder stops cleanly" test $? -eq 0
"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>/dev/null
$CHECK_TCPMSG "$d/dump.txt" "$d/client.log" "$d/server.log" "$rounds" --preexisting \
	--name "record preexisting"
others=$(awk -v a="pid=$spid" -v b="pid=$cpid" '$1 == "sock_op" && index($0, a " ") == 0 &&
	index($0, b " ") == 0' "$d/dump.txt" | wc -l)
check "record preexisting: -p keeps other processes out ($others foreign ops)" test "$others" -eq 0
