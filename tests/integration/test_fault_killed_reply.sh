#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault: a back end killed in the middle of its reply (tests/tools/killed_chain.py,
# one recorder on loopback).  The front end answers in two parts around one
# call; the back end sends the first part of its reply and is killed
# (SIGKILL), so its connection closes as if the reply were whole, the front
# end closes the client's without its second part, and only the back end's
# exit record (the signal) tells.  That request must come out incomplete,
# the ones before it complete.  Then the same chain with every request
# answered and the back end stopped (SIGTERM) while its kept-alive
# connection is open: its last reply was whole and the front end went on
# with it, so every request is complete.  Last, the back end resets its
# connection after a whole reply: the front end's next call is refused by
# the kernel (EPIPE or ECONNRESET, nothing on the wire) and it closes the
# client's connection after its reply's first part; only the recorded
# refused send (VPR_SEND_FAILED) tells that this request was cut.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "fault killed reply"

PY=$(command -v /usr/bin/python3 || command -v python3)
CHAIN=tests/tools/killed_chain.py
d=$(scratch_dir)

# run NAME COUNT SIGNAL: COUNT requests; SIGNAL kills the back end while the
# last one is in flight (KILL) or after all were answered (TERM); RST: the
# back end resets its connection before the last, which is cut, and is
# stopped (TERM) at the end.
run() {
	local name=$1 count=$2 sig=$3 fp bp back front client last
	fp=$(free_port)
	bp=$(free_port)
	while [ "$bp" = "$fp" ]; do bp=$(free_port); done
	start_recorder "$d/$name.vpr" "$d/$name.log" --port "$fp" --port "$bp" || return 1
	"$PY" "$CHAIN" back "$bp" "$d/$name.bready" &
	back=$!
	on_exit "kill -KILL $back 2>/dev/null"
	wait_file "$d/$name.bready" || return 1
	"$PY" "$CHAIN" front "$fp" "$bp" "$d/$name.fready" &
	front=$!
	on_exit "kill -KILL $front 2>/dev/null"
	wait_file "$d/$name.fready" || return 1
	last=c
	[ "$sig" = TERM ] && last=w
	[ "$sig" = RST ] && last=r
	"$PY" "$CHAIN" client "$fp" "$count" "$last" >"$d/$name.client" &
	client=$!
	on_exit "kill -KILL $client 2>/dev/null"
	# The last request in flight (KILL) or answered (TERM).
	local want=$((count - 1))
	[ "$sig" = TERM ] && want=$count
	for _ in $(seq 200); do
		[ "$(grep -c answered "$d/$name.client")" -ge "$want" ] && break
		sleep 0.05
	done
	sleep 0.3
	[ "$sig" = RST ] && sig=TERM
	{
		kill "-$sig" "$back"
		wait "$back"
	} 2>/dev/null
	wait "$client"
	sleep 0.3
	stop_recorder
	kill -KILL "$front" 2>/dev/null
	"$VPATH_ANALYZE" paths --json "$d/$name.vpr" >"$d/$name.json" 2>"$d/$name.err"
	[ -z "${KEEP_CHAIN:-}" ] || cp "$d/$name.vpr" "$KEEP_CHAIN.$name.vpr"
}

# complete_flags FILE: the front end's requests' complete flags in time order, e.g. "true true false".
complete_flags() {
	"$PY" -c '
import json, sys
reqs = json.load(open(sys.argv[1]))["requests"]
reqs.sort(key=lambda r: r["root"]["start_ns"])
print(" ".join("true" if r["complete"] else "false" for r in reqs))' "$1"
}

run killed 3 KILL
check "fault killed reply: the client's last request was cut ($(tr '\n' ' ' <"$d/killed.client"))" \
	test "$(tr '\n' ' ' <"$d/killed.client")" = "answered answered cut "
flags=$(complete_flags "$d/killed.json")
check "fault killed reply: the cut request is incomplete, those before it complete ($flags)" \
	test "$flags" = "true true false"

run stopped 3 TERM
check "fault killed reply: every request answered before the stop" \
	test "$(grep -c answered "$d/stopped.client")" = 3
flags=$(complete_flags "$d/stopped.json")
check "fault killed reply: stopped after its last whole reply, nothing is incomplete ($flags)" \
	test "$flags" = "true true true"

run reset 3 RST
check "fault killed reply: the request after the reset was cut ($(tr '\n' ' ' <"$d/reset.client"))" \
	test "$(tr '\n' ' ' <"$d/reset.client")" = "answered answered cut "
check "fault killed reply: the refused send was recorded" \
	sh -c "'$VPATH_ANALYZE' dump '$d/reset.vpr' | grep -q 'send_failed.* err=-\(32\|104\)'"
flags=$(complete_flags "$d/reset.json")
check "fault killed reply: a refused call cuts its request, those before it complete ($flags)" \
	test "$flags" = "true true false"
