#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Go found at exec, without naming it (issue 27, point 1; docs/recorder.md,
# "Programs started later"): the recorders start first, then the Go net/http
# front end and back end of tests/handoff (--app go-exec: no --go-binary),
# 16 sessions.  The recorders must find goapp when it is exec'ed and follow
# its goroutines: gated at 99% of the paths right, every path and link
# marked exact right (without the goroutines, 48.5-51% came out right).
# Each recorder must say it followed goapp, and how long after its exec the
# probes were in place (printed, not gated: the machine is shared), and
# its recording must mark goapp as Go at its exec (VPR_GO_PENDING), before
# its first socket operation.  The
# named path (--go-binary) is test_handoff's go run and test_record_go's.
# And Go programs exec'ed while the recorder starts (window_case below;
# GO_EXEC_WINDOW_ONLY=1 runs only that case).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
source tests/e2e/harness.sh
source tests/evloop/workload.sh
wl_score_opts=(--gate-roots)

e2e_require "Go found at exec"
go_missing() { command -v go >/dev/null || echo golang-go; }
why=$(e2e_servers_unavailable go_missing)
if [ -n "$why" ]; then
	skip "Go found at exec" "$why"
	exit 0
fi

# window_case: a Go program exec'ed after the recorder's look at /proc and
# before its exec tracepoint was attached was in neither, and its
# goroutines were never followed (3 of 30 ad-hoc runs under load, session
# 17: the libssl scan and the attach take that long).  A Go process running
# before the recorder marks its look (-v names it); from that line until
# the recorder says it records, Go clients of the same binary are exec'ed
# 10 ms apart (40 at most), then exchange a few rounds each: every one must
# have goroutine records.  Without the second look (go_follow__rescan),
# 62 of 66 clients of 3 runs had none.
# The window is a few hundred milliseconds: a polling shell that the
# scheduler runs late can miss it and exec none, so a run without any is
# tried again (3 runs at most) before the case is judged.
window_case() {
	local name="Go found at exec: programs exec'ed while the recorder attaches"
	local wdir try
	wdir=$(scratch_dir)
	if ! build_gorecord "$wdir"; then
		not_ok "$name: gorecord builds ($(head -c 300 "$wdir/build.log"))"
		return
	fi
	for try in 1 2 3; do
		window_run "$name" "$wdir" || return
		[ "${#window_pids[@]}" -gt 0 ] && break
		echo "# $name: run $try exec'ed none in the window"
	done
	check "$name: each followed (${#window_pids[@]} exec'ed, $window_miss without goroutine records)" \
		[ "${#window_pids[@]}" -gt 0 -a "$window_miss" -eq 0 ]
}

# window_run NAME DIR: one recorder start with clients exec'ed in the window;
# sets window_pids and window_miss.  Returns 1 (told) if it could not run.
window_run() {
	local name=$1 wdir=$2 spid rpid n p
	window_pids=()
	window_miss=0
	rm -f "$wdir/go" "$wdir/rec.vpr"
	"$wdir/gorecord" "127.0.0.1:$(free_port)" 1 "$wdir/never" >"$wdir/server.out" 2>&1 &
	spid=$!
	on_exit "kill -KILL $spid"
	wait_for "$wdir/server.out" listening || { not_ok "$name: a Go server starts"; return 1; }
	: >"$wdir/rec.log"
	"$VPATH_RECORD" -o "$wdir/rec.vpr" -v 2>"$wdir/rec.log" &
	rpid=$!
	on_exit "kill -KILL $rpid"
	for _ in $(seq 2000); do
		grep -q "Go binary of PID $spid " "$wdir/rec.log" && break
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.005
	done
	while ! grep -q "recording to" "$wdir/rec.log" && kill -0 "$rpid" 2>/dev/null &&
		[ "${#window_pids[@]}" -lt 40 ]; do
		"$wdir/gorecord" 127.0.0.1:0 3 "$wdir/go" >/dev/null 2>&1 &
		window_pids+=($!)
		on_exit "kill -KILL $!"
		sleep 0.01
	done
	if ! wait_for "$wdir/rec.log" "recording to" "${RECORDER_START_S:-60}"; then
		not_ok "$name: the recorder starts ($(tail -n 2 "$wdir/rec.log" | tr "\n" " "))"
		return 1
	fi
	touch "$wdir/go"
	for p in "${window_pids[@]}"; do wait "$p"; done
	kill -INT "$rpid"
	wait "$rpid"
	kill -KILL "$spid"
	"$VPATH_ANALYZE" dump "$wdir/rec.vpr" >"$wdir/dump.txt" 2>&1
	for p in "${window_pids[@]}"; do
		n=$(grep '^goroutine ' "$wdir/dump.txt" | grep -c " pid=$p ")
		[ "$n" -gt 0 ] || window_miss=$((window_miss + 1))
	done
}
window_case
[ -n "${GO_EXEC_WINDOW_ONLY:-}" ] && exit 0

seed=${VPATH_SEED:-11}
requests=${HANDOFF_REQUESTS:-1500}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
wl_test_run "Go found at exec" handoff.json tests/handoff/run.sh --app go-exec \
	--requests "$requests" --seed "$seed"
for host in front backend; do
	log=$wl_kept/$host.record.log
	check "Go found at exec: the $host's recorder follows goapp from its exec" \
		grep -q "Go binary .*/goapp (PID [0-9]*, started after the recorder).*goroutines followed" "$log"
	sed -n "s/.*Go binary .*\/goapp (PID [0-9]*, started after the recorder): \(probes in place .*\)/# Go found at exec, $host: \1/p" "$log"
	# Known Go from its exec (VPR_GO_PENDING), before its first socket operation.
	pid=$(sed -n 's/.*Go binary .*\/goapp (PID \([0-9]*\), started after the recorder).*goroutines followed.*/\1/p' "$log" | head -n 1)
	"$VPATH_ANALYZE" dump "$wl_kept/$host.vpr" 2>/dev/null |
		grep -E "^(goroutine|sock_op) .* pid=${pid:-none} " | head -n 1 >"$wl_kept/$host.first.txt"
	check "Go found at exec: the $host's recording marks goapp pending before its operations" \
		grep -q "^goroutine .* pending" "$wl_kept/$host.first.txt"
done

# The probes 1 s late (--test-go-late), as on a busy host (0.4-1.4 s seen,
# session 18): the requests of that second are served by bare threads,
# whose links the thread rules make and which must not be marked exact
# (run.sh gates every path and link marked exact; here, after the probes,
# the links are the wake-up rule's, inferred: none may be exact).  Without
# the pending record, 4 links of the bare threads were marked exact
# (2026-11-28).  Accuracy printed, not gated: what the bare threads served
# is the thread rules' guess (75% of the paths right, 2026-11-28).
late=$(scratch_dir)
HO_GO_LATE_MS=1000 tests/handoff/run.sh --app go-exec --requests "$requests" --seed "$seed" \
	--sessions 16 --keep "$late/run" >"$late/run.out"
[ $? -eq 2 ] && not_ok "Go found at exec, probes 1 s late: the run itself failed"
sed 's/handoff go-exec:/handoff go-exec, probes 1 s late:/' "$late/run.out"
check "Go found at exec, probes 1 s late: no link marked exact" \
	grep -q "links marked exact 0," "$late/run.out"
exit 0
