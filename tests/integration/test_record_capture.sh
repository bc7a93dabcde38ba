#!/usr/bin/env bash
# Payload capture (vpath-record --capture N): known traffic on loopback to a
# captured port and to another one.  Payload records exist only for the
# captured port (or process), at both ends and in both directions, hold the
# first N bytes of what was sent, and come right behind their operation;
# the HTTP Authorization and Cookie values, a Redis AUTH (RESP and inline)
# and a PostgreSQL password message come out replaced with the URL and the
# command intact; the file is 0600 and flagged.  Without --capture there
# are none, and --capture alone is refused.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record capture"

# Not a shim that may take seconds to start after the recorder's window.
PY=$(command -v /usr/bin/python3 || command -v python3)
d=$(scratch_dir)
pa=$(free_port)
pb=$(free_port)
while [ "$pb" = "$pa" ]; do pb=$(free_port); done
N=256

"$PY" tests/tools/capture_exchange.py serve "$pa" "$pb" "$d/ready" &
server=$!
on_exit "kill $server"
wait_file "$d/ready"

# record_capture OUT [ARGS...]: the client's traffic recorded with ARGS.
record_capture() {
	local out=$1
	shift
	if ! start_recorder "$out" "$out.log" "$@"; then
		return 1
	fi
	"$PY" tests/tools/capture_exchange.py client "$pa" "$pb"
	sleep 0.5
	kill -INT "$RECORDER_PID"
	wait "$RECORDER_PID"
}

record_capture "$d/port.vpr" --capture "$N" --capture-port "$pa"
check "record capture: --capture-port recording succeeds" test $? -eq 0
"$PY" tests/tools/check_capture.py "$d/port.vpr" "$N" "$pa" "$pb" 0 "record capture port"
check "record capture: the file is 600 ($(stat -c %a "$d/port.vpr"))" \
	test "$(stat -c %a "$d/port.vpr")" = 600
stat=$("$OUTPUT/tests/vprstat" "$d/port.vpr")
check "record capture: every payload right behind its operation ($(kv payload_apart "$stat") apart)" \
	test "$(kv payload_apart "$stat")" = 0

record_capture "$d/pid.vpr" --capture "$N" --capture-pid "$server"
check "record capture: --capture-pid recording succeeds" test $? -eq 0
"$PY" tests/tools/check_capture.py "$d/pid.vpr" "$N" "$pa" "$pb" "$server" "record capture pid"
# The process filter alone takes every port of the process.
check "record capture: with --capture-pid alone the process's other port is captured too" \
	grep -a -q "on the other port" "$d/pid.vpr"

record_capture "$d/off.vpr"
stat=$("$OUTPUT/tests/vprstat" "$d/off.vpr")
check "record capture: none without --capture ($(kv payload "$stat") payloads, flags $(kv file_flags "$stat"))" \
	test "$(kv payload "$stat")" = 0 -a "$(kv file_flags "$stat")" = 0x0

"$VPATH_RECORD" --capture 64 -o "$d/bad.vpr" 2>"$d/bad.log"
rc=$?
check "record capture: --capture without a port or pid is refused in one line" \
	test $rc -ne 0 -a ! -e "$d/bad.vpr" -a "$(grep -c . "$d/bad.log")" -le 2
check "record capture: the refusal names the options" grep -q -- "--capture-port" "$d/bad.log"
