#!/usr/bin/env bash
# The syscall-tracepoint fallback (for kernels without sock_*_length) records
# the same exchange exactly as the fast path does, and says so in the header
# and in every operation.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record fallback"
record_exchange_test "record fallback" 127.0.0.1 --fallback --force-fallback

# A connection the recorder never saw start and cannot enumerate (another
# namespace, opened before recording) has no cookie yet: the fallback names
# it by the socket's address and writes its 4-tuple once.
d=$(scratch_dir)
ns=vpr-fb-$$
ip netns add "$ns" && on_exit "ip netns del $ns"
ip -n "$ns" link set lo up
port=$(free_port)
connect_and_wait "$d" "$port" 8 "ip netns exec $ns"
must_start_recorder "record fallback synthetic" "$d/rec.vpr" "$d/rec.log" --force-fallback \
	--port "$port"
touch "$d/go"
wait "$CLIENT_PID"
wait "$SERVER_PID"
stop_recorder
"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>/dev/null
clport=$(sed -n 's/^client .* lport=\([0-9]*\) .*/\1/p' "$d/client.log")
cookie=$(awk -v p=":$clport -> " '$1 == "conn" && index($0, p) && /origin=preexisting/ {
	sub("cookie=", "", $5); print $5; exit }' "$d/dump.txt")
ctid=$(sed -n 's/^client pid=[0-9]* tid=\([0-9]*\) .*/\1/p' "$d/client.log")
# Real cookies are small counters; synthetic ones are kernel addresses (0xffff...).
if [ -z "$cookie" ] && grep -q "^sock_op .* tid=$ctid .* cookie=0x[0-9a-f]\{1,15\} " "$d/dump.txt"; then
	# Another BPF program (a second recorder) gave the socket a cookie first.
	skip "record fallback: synthetic cookie" "the sockets already had cookies"
else
	check "record fallback: unseen socket announced with a synthetic cookie ($cookie)" \
		test "${#cookie}" -eq 18 -a "${cookie:2:1}" \> 7
	sends=$(grep -c "^sock_op .* tid=$ctid .* cookie=$cookie send .* fallback" "$d/dump.txt")
	check "record fallback: the client's sends carry the synthetic cookie ($sends of 8)" \
		test "$sends" -eq 8
fi
