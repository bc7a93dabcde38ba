#!/usr/bin/env bash
# Go goroutines in the recording (tests/golang/gorecord.go, docs/recorder.md):
# a Go program with known goroutines (main hands messages through a channel
# to a caller goroutine that sends them over TCP to a server goroutine)
# prints their ids; the recording must name the right goroutine before every
# operation (VPR_GO_RUN), the creations (NEW) and main's wake-ups of the
# caller (READY).  Four ways in: the binary named with --go-binary and
# started after the recorder (followed from its exec), the binary not named
# and started after the recorder (found at its exec: the exec watch and the
# probe helper), a process running when the recorder starts (found by its
# /proc/PID/exe), and a stripped binary, running or started later (one
# warning, operations still recorded, no goroutine records).  And a
# process outside the recorder's --netns is not followed at all.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
need_bpf "record go"
if ! command -v go >/dev/null; then
	skip "record go" "no Go compiler (Debian package golang-go, scripts/install-deps.sh)"
	exit 0
fi
ROUNDS=20
dir=$(scratch_dir)
if ! build_gorecord "$dir"; then
	not_ok "record go: gorecord builds ($(head -c 300 "$dir/build.log"))"
	exit 1
fi

# run_case NAME BINARY WHEN [RECORDER ARGS...]: WHEN is "before" (the program
# starts after the recorder), "exec" (after it, and its first round waits
# until the recorder says it follows it: the few milliseconds between a
# program's exec and its probes are measured, not tested) or "running"
# (before it).
run_case() {
	local name=$1 bin=$2 when=$3 port pid
	shift 3
	port=$(free_port)
	rm -f "$dir/go" "$dir/truth.txt"
	if [ "$when" = running ]; then
		"$bin" "127.0.0.1:$port" "$ROUNDS" "$dir/go" >"$dir/truth.txt" 2>"$dir/prog.err" &
		pid=$!
		on_exit "kill -KILL $pid"
		wait_for "$dir/truth.txt" listening || { not_ok "$name: program starts"; return 1; }
		must_start_recorder "$name" "$dir/rec.vpr" "$dir/rec.log" -v "$@"
	else
		must_start_recorder "$name" "$dir/rec.vpr" "$dir/rec.log" -v "$@"
		"$bin" "127.0.0.1:$port" "$ROUNDS" "$dir/go" >"$dir/truth.txt" 2>"$dir/prog.err" &
		pid=$!
		on_exit "kill -KILL $pid"
		wait_for "$dir/truth.txt" listening || { not_ok "$name: program starts"; return 1; }
	fi
	if [ "$when" = exec ]; then
		wait_for "$dir/rec.log" "(PID $pid, started after the recorder)" ||
			not_ok "$name: the recorder tells of the program ($(tail -n 2 "$dir/rec.log" | tr "\n" " "))"
		sed -n "s/.*(PID $pid, started after the recorder): probes in place \(.*\)/# $name: probes in place \1/p" "$dir/rec.log"
	fi
	touch "$dir/go"
	wait_for "$dir/truth.txt" '^done' || not_ok "$name: program finishes ($(head -c 200 "$dir/prog.err"))"
	wait "$pid"
	stop_recorder || not_ok "$name: recorder exits 0 ($(tail -n 2 "$dir/rec.log" | tr "\n" " "))"
	"$VPATH_ANALYZE" dump "$dir/rec.vpr" >"$dir/dump.txt" 2>&1
	RUN_PID=$pid
}

run_case "record go: named binary, started later" "$dir/gorecord" before --go-binary "$dir/gorecord"
python3 tests/golang/check_gorecord.py "$dir/dump.txt" "$dir/truth.txt" "$RUN_PID" "$ROUNDS" |
	sed 's/^\(not \)\?ok - /&record go, started later: /'

run_case "record go: not named, started later" "$dir/gorecord" exec
check "record go, not named, started later: followed from its exec" \
	grep -q "Go binary $dir/gorecord (PID $RUN_PID, started after the recorder).*goroutines followed" "$dir/rec.log"
python3 tests/golang/check_gorecord.py "$dir/dump.txt" "$dir/truth.txt" "$RUN_PID" "$ROUNDS" |
	sed 's/^\(not \)\?ok - /&record go, not named: /'

run_case "record go: stripped, started later" "$dir/gorecord-stripped" exec
check "record go, stripped, started later: one warning line" \
	test "$(grep -c "warning: Go binary $dir/gorecord-stripped (PID $RUN_PID.*stripped" "$dir/rec.log")" -eq 1
python3 tests/golang/check_gorecord.py "$dir/dump.txt" "$dir/truth.txt" "$RUN_PID" "$ROUNDS" --none |
	sed 's/^\(not \)\?ok - /&record go, stripped, started later: /'

run_case "record go: running at start" "$dir/gorecord" running
python3 tests/golang/check_gorecord.py "$dir/dump.txt" "$dir/truth.txt" "$RUN_PID" "$ROUNDS" |
	sed 's/^\(not \)\?ok - /&record go, running at start: /'

run_case "record go: stripped" "$dir/gorecord-stripped" running
check "record go, stripped: one warning line" \
	test "$(grep -c 'warning: Go binary .*stripped' "$dir/rec.log")" -eq 1
python3 tests/golang/check_gorecord.py "$dir/dump.txt" "$dir/truth.txt" "$RUN_PID" "$ROUNDS" --none |
	sed 's/^\(not \)\?ok - /&record go, stripped: /'

# --netns NAME: the Go runtime's probes follow only that namespace's processes.
# The program runs outside it (in the root namespace), so nothing of it may be
# recorded, neither its goroutine creations nor its wake-ups (issue 16: the
# other tenants' processes are not the user's to record).
ns=vpr-go-$$
ip netns add "$ns" && on_exit "ip netns del $ns"
for when in running before; do
	run_case "record go: outside --netns ($when)" "$dir/gorecord" "$when" --netns "$ns" --go-binary "$dir/gorecord"
	n=$(grep '^goroutine ' "$dir/dump.txt" | grep -c " pid=$RUN_PID ")
	check "record go, a process outside --netns ($when the recorder starts): no goroutine records of it ($n)" [ "$n" -eq 0 ]
done
