#!/usr/bin/env bash
# Socket operations wait in per-CPU batches in the kernel.  The recorder has
# every CPU send its batch each round, so a quiet connection's operations
# reach the file while recording goes on (not only when it stops), and it
# merges the CPUs' batches, so operations are in the file in time order.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record batches"
VPRSTAT=$OUTPUT/tests/vprstat
d=$(scratch_dir)

# A dozen round trips: far fewer operations than a batch holds.
port=$(free_port)
must_start_recorder "record batches" "$d/quiet.vpr" "$d/quiet.log" -v --port "$port"
check "recorder batches socket operations" grep -q "per-CPU batches" "$d/quiet.log"
check "tcpmsg exchange runs" tcpmsg_exchange "$d" 127.0.0.1 "$port" 12
live=0
for _ in $(seq 50); do
	live=$(kv sock_ops "$("$VPRSTAT" "$d/quiet.vpr" 2>/dev/null)")
	[ "${live:-0}" -ge 48 ] && break
	sleep 0.1
done
check "a quiet connection's operations reach the file while recording ($live)" \
	test "${live:-0}" -ge 48
stop_recorder
final=$(kv sock_ops "$("$VPRSTAT" "$d/quiet.vpr")")
check "nothing of it came only at the stop ($live of $final)" test "${live:-0}" = "${final:-x}"

# Many threads on both CPUs: batches of both interleave in time.
must_start_recorder "record batches" "$d/busy.vpr" "$d/busy.log"
eb=$("$OUTPUT/tests/echobench" -t 20 -d 1 -w 0.1)
stop_recorder
st=$("$VPRSTAT" --pid "$(kv pid "$eb")" "$d/busy.vpr")
check "every round trip under load is recorded" \
	test "$(kv pid_ops "$st")" -ge $((4 * $(kv roundtrips "$eb")))
check "no loss under load" test "$(kv lost "$st")" = 0 -a "$(kv seq_gap_bytes "$st")" = 0
check "operations are in time order ($(kv op_backwards "$st") steps back, at most $(kv op_max_backwards_ns "$st") ns)" \
	test "$(kv op_backwards "$st")" = 0

# Where the kernel will not run the flush program on each CPU, operations
# cross the ring one by one; the recording is the same (--no-batches acts
# as if the kernel refused).
record_exchange_test "record without batches" 127.0.0.1 "" --no-batches -v
must_start_recorder "record without batches" "$d/single.vpr" "$d/single.log" --no-batches -v
check "without batches: the recorder says so" grep -q "one by one" "$d/single.log"
eb=$("$OUTPUT/tests/echobench" -t 20 -d 1 -w 0.1)
stop_recorder
st=$("$VPRSTAT" --pid "$(kv pid "$eb")" "$d/single.vpr")
check "without batches: every round trip under load is recorded, none lost" \
	test "$(kv pid_ops "$st")" -ge $((4 * $(kv roundtrips "$eb"))) -a "$(kv lost "$st")" = 0 \
	-a "$(kv seq_gap_bytes "$st")" = 0
check "without batches: operations are in time order" test "$(kv op_backwards "$st")" = 0
