#!/usr/bin/env bash
# A message read together with the peer's FIN: the kernel counts the FIN in
# copied_seq, but the recorded receive range must still equal the sender's
# send range, or the last message before a close could not be paired.
# Both capture paths: the sock_*_length tracepoints and the syscall fallback.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record fin"

fin_test() { # name, recorder args...
	local name=$1 d port sends recvs
	shift
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	check "$name: exchange ran (700 bytes, then EOF in a second read)" \
		python3 tests/tools/edge_exchange.py fin "$port"
	stop_recorder
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt"
	sends=$(grep '^sock_op' "$d/dump.txt" | grep ' send bytes=700 ' | sed 's/.*range=//')
	recvs=$(grep '^sock_op' "$d/dump.txt" | grep ' recv bytes=700 ' | sed 's/.*range=//')
	check "$name: one send and one receive of the message recorded" \
		test "$(echo "$sends" | grep -c .)" -eq 1 -a "$(echo "$recvs" | grep -c .)" -eq 1
	check "$name: receive range ($recvs) equals send range ($sends)" \
		test -n "$sends" -a "$sends" = "$recvs"
}

fin_test "record fin"
fin_test "record fin fallback" --force-fallback
