# Helpers of the recorder benchmarks (tests/bench/recorder.sh, recorder_compare.sh):
# arithmetic over figures, a recorder started and stopped around a run,
# what its BPF programs cost.  Sourced after tests/lib.sh; the caller sets
# dir (its scratch directory).  REC_BIN is the vpath-record to start
# (VPATH_RECORD unless a comparison names another build).

# calc EXPR: floating-point arithmetic.
calc() { awk "BEGIN { printf \"%.4f\", $1 }"; }
# stats VALUES...: "median min max" of the numbers.
stats() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		      printf "%.3f %.3f %.3f", m, v[1], v[NR] }'
}
# CPU ticks (utime + stime, all threads) of a process.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# Context switches of all threads of a process: each voluntary one is a wake-up.
ctx_switches() {
	cat /proc/"$1"/task/*/status 2>/dev/null |
		awk '/^voluntary_ctxt_switches/ { s += $2 } END { print s + 0 }'
}
# Attached BPF links the process holds (one per attached program).
bpf_links() { ls -l /proc/"$1"/fd 2>/dev/null | grep -c 'bpf_link' || true; }

rec_pid=
# start_recorder FILE ARGS...: starts the recorder and waits until it has
# attached (its count of BPF links stops growing).
start_recorder() {
	local out=$1 bin=${REC_BIN:-$VPATH_RECORD} n prev=-1 stable=0 i
	shift
	"$bin" -o "$out" "$@" >"$out.err" 2>&1 &
	rec_pid=$!
	echo "$rec_pid" >"$dir/recorder.pid"
	# 60 s: loading every program takes the verifier seconds on a busy machine.
	for i in $(seq 600); do
		if ! kill -0 "$rec_pid" 2>/dev/null; then
			echo "recorder benchmark: $bin $* exited early:" >&2
			cat "$out.err" >&2
			return 1
		fi
		n=$(bpf_links "$rec_pid")
		if [ "$n" -gt 0 ] && [ "$n" -eq "$prev" ]; then
			stable=$((stable + 1))
			[ "$stable" -ge 3 ] && return 0
		else
			stable=0
		fi
		prev=$n
		sleep 0.1
	done
	echo "recorder benchmark: $bin did not attach within 60 s" >&2
	# Stopped: a caller that goes on would otherwise run a second recorder on the same file.
	stop_recorder
	return 1
}
stop_recorder() {
	kill -INT "$rec_pid" 2>/dev/null
	wait "$rec_pid"
	local rc=$?
	rec_pid=
	rm -f "$dir/recorder.pid"
	return $rc
}

# bpf_prog_costs PID: "name runs ns_per_run" of each BPF program the process
# holds that has run (kernel.bpf_stats_enabled must be on).  Its program
# fds' fdinfo has the run count and time, bpftool has the names.
bpf_prog_costs() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk '/^prog_id:/ { id = $2 } /^run_time_ns:/ { ns = $2 } /^run_cnt:/ { n = $2 }
		     END { if (id && n != "") print id, n, ns }' "$f"
	done | python3 -c '
import json, subprocess, sys
names = {p["id"]: p.get("name", "?") for p in
         json.loads(subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True).stdout)}
for line in sys.stdin:
    pid, cnt, ns = map(int, line.split())
    if cnt:
        print("%-24s %12d %8.0f" % (names.get(pid, "?"), cnt, ns / cnt))
'
}

# bpf_stats_on: turns kernel.bpf_stats_enabled on until the script exits.
bpf_stats_on() {
	local old
	old=$(cat /proc/sys/kernel/bpf_stats_enabled)
	on_exit "echo $old > /proc/sys/kernel/bpf_stats_enabled"
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
}

# bench_scratch WHO FILES...: exits with one line unless every FILE is an
# executable; then sets dir to a scratch directory, and an interrupted run
# still stops the recorder (runs happen in subshells: the pid file says
# which one is running).
bench_scratch() {
	local who=$1 f
	shift
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "$who: $f is missing: run make first" >&2
			exit 1
		fi
	done
	dir=$(scratch_dir)
	on_exit "[ -f '$dir/recorder.pid' ] && kill -INT \$(cat '$dir/recorder.pid') && sleep 1"
}
