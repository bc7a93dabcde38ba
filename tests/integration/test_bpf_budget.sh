#!/usr/bin/env bash
# The verifier's budget: with every option that adds code to the probes on
# (capture, wake-ups, log lines), no eBPF program of the recorder may use
# more than BUDGET of the verifier's 1M instructions.  The socket programs
# walk the HTTP/2 frame reader, TLS detection and the capture paths on
# every branch, and a kernel whose verifier prunes less than this one
# refuses a program near the limit outright: the headroom is a property
# to keep, measured here (bpf-insns) rather than found on a user's kernel.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "bpf budget"
BUDGET=${BUDGET:-900000}
INSNS=$OUTPUT/tests/bpf-insns
d=$(scratch_dir)

start_recorder "$d/rec.vpr" "$d/rec.log" --capture 256 --capture-port 50051 \
	--wakeups --logs 64 || { not_ok "bpf budget: the recorder starts"; cat "$d/rec.log"; exit 1; }
# The followers attach after "recording to": wait for the socket programs.
for _ in $(seq 100); do
	"$INSNS" "$RECORDER_PID" >"$d/insns" 2>"$d/insns.err" &&
		grep -q "prog=sock_send_lengt " "$d/insns" && grep -q "prog=sock_recv_lengt " "$d/insns" && break
	sleep 0.1
done
stop_recorder
sed 's/^/# /' "$d/insns"
check "bpf budget: the socket programs' counts are read" \
	grep -q "prog=sock_recv_lengt verified_insns=[1-9]" "$d/insns"

# over FILE LIMIT: the programs of FILE above LIMIT verified instructions.
over() {
	awk -v limit="$2" '/^prog=/ { split($2, v, "="); if (v[2] + 0 > limit + 0) print $1, v[2] }' "$1"
}
bad=$(over "$d/insns" "$BUDGET")
if [ -z "$bad" ]; then
	ok "bpf budget: every program verifies in at most $BUDGET instructions"
else
	not_ok "bpf budget: every program verifies in at most $BUDGET instructions"
	echo "$bad" | sed 's/^/#   over: /'
fi
# The socket programs on their own: since the frame walk's step is a global
# function (bpf/h2_frames.h, h2_walk_step()), sock_recv_length takes 182k
# here (2026-11-28), where the step inlined in its loop's callback took 822k.
# A step inlined again, or new code the verifier walks once per path of the
# loop's callers, fails here long before the 1M limit.
SOCK_BUDGET=${SOCK_BUDGET:-300000}
bad=$(over <(grep '^prog=sock_' "$d/insns") "$SOCK_BUDGET")
if [ -z "$bad" ]; then
	ok "bpf budget: the socket programs verify in at most $SOCK_BUDGET instructions"
else
	not_ok "bpf budget: the socket programs verify in at most $SOCK_BUDGET instructions"
	echo "$bad" | sed 's/^/#   over: /'
fi
# The check can fail: a budget below the largest program flags it.
largest=$(awk '/^prog=/ { split($2, v, "="); if (v[2] + 0 > m) m = v[2] + 0 } END { print m }' "$d/insns")
check "bpf budget: a budget below the largest program ($largest) is reported" \
	test -n "$(over "$d/insns" $((largest - 1)))"
