#!/usr/bin/env bash
# A CPU held up between stamping a socket operation and handing it on (a
# program preempted, a vCPU descheduled by its host) must not put that
# operation into the file behind later ones: the recorder waits for it.
# --test-stall makes every N-th operation stall in the kernel for longer
# than the recorder's margin; before the recorder waited for CPUs still
# writing, three runs in four of the batched case wrote dozens of records
# 10-70 ms out of order.  The recorder is kept on CPU 1, so that it runs
# while a program stalls CPU 0 (as it would on a host with more CPUs).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record order under stalls"
if [ "$(nproc)" -lt 2 ]; then
	skip "record order under stalls" "needs 2 CPUs: a stalled CPU would stall the recorder too"
	exit 0
fi
VPRSTAT=$OUTPUT/tests/vprstat
d=$(scratch_dir)

# mode: "" (per-CPU batches: the stalled program holds its CPU's batch) or
# --no-batches (it holds a reserved record in the ring, before every later one).
for mode in "" --no-batches; do
	name="stalls${mode:+ $mode}"
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" -v --port "$port" \
		--test-stall 100:2000 $mode
	taskset -a -p -c 1 "$RECORDER_PID" >/dev/null
	eb=$("$OUTPUT/tests/echobench" -t 8 -d 3 -w 0.1 -P "$port")
	stop_recorder
	st=$("$VPRSTAT" "$d/rec.vpr")
	waited=$(sed -n 's/.*: \([0-9]*\) rounds waited for a CPU still writing.*/\1/p' "$d/rec.log")
	check "$name: the recorder had to wait for a stalled CPU (${waited:-0} rounds)" \
		test "${waited:-0}" -gt 0
	check "$name: the recorder says nothing was written out of order" \
		test "$(grep -c "out of time order" "$d/rec.log")" = 0
	check "$name: records in time order ($(kv backwards "$st") steps back, at most $(kv max_backwards_ns "$st") ns)" \
		test "$(kv backwards "$st")" = 0
	check "$name: every round trip recorded, none lost" \
		test "$(kv sock_ops "$st")" -ge $((4 * $(kv roundtrips "$eb"))) -a "$(kv lost "$st")" = 0
	rm -f "$d/rec.vpr" "$d/rec.log"
done
