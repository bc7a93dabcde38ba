#!/usr/bin/env bash
# Runs each libFuzzer target SECONDS seconds on a copy of its seed corpus
# (tests/fuzz/corpus/<target>/, which it leaves alone) and stops at the first
# crash, leak or sanitizer report, printing the reproducer's path.
#
#   tests/fuzz/run.sh SECONDS TARGET_BINARY...      (make fuzz FUZZ_SECONDS=N)
#
# Per target, in $OUTPUT/fuzz/<target>.run/: the grown corpus, the log, and
# any crash-*/leak-*/timeout-* reproducer; the last status line of each log
# (inputs executed, exec/s, cov, ft) is printed as a summary.
# Reproduce: $OUTPUT/fuzz/<target> REPRODUCER.  A reproducer that is fixed
# goes into tests/fuzz/corpus/<target>/ as a regression input.
set -u
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-.output}
seconds=${1:?usage: run.sh SECONDS TARGET_BINARY...}
shift
[ $# -gt 0 ] || { echo "run.sh: no fuzz target given" >&2; exit 2; }

# Options per target: the CLI target's inputs are short command lines.
max_len_of() {
	case $1 in
	fuzz_analyze | fuzz_recfile) echo 4096 ;;
	*) echo 512 ;;
	esac
}

# quarantine_size_mb: a smaller use-after-free quarantine than the 256 MB
# default; the analysis allocates and frees its buffers once per input, and
# churning through 256 MB of fresh pages cost a third of the time here.
# libFuzzer's timeout is wall-clock time: a long run at low priority on a
# loaded machine needs more than the default (FUZZ_TIMEOUT, seconds per input).
timeout_s=${FUZZ_TIMEOUT:-10}
export ASAN_OPTIONS=${ASAN_OPTIONS:-quarantine_size_mb=64:detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

mkdir -p "$OUTPUT/fuzz"
# Absolute: a target may change its working directory (fuzz_cli does).
out=$(cd "$OUTPUT/fuzz" && pwd)
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	run=$out/$name.run
	seeds=tests/fuzz/corpus/$name
	rm -rf "$run"
	mkdir -p "$run/corpus"
	[ -d "$seeds" ] && cp "$seeds"/* "$run/corpus/" 2>/dev/null
	# -close_fd_mask=1: the targets' own output (a whole analysis per input)
	# goes nowhere; libFuzzer's messages and sanitizer reports still come.
	# The CPU time it used: on a loaded machine exec/s (per second of wall
	# clock) says more about the other processes than about the target.
	cpu=$( { TIMEFORMAT='%U %S'; time {
		"$bin" -max_total_time="$seconds" -max_len="$(max_len_of "$name")" -timeout="$timeout_s" \
			-rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
			-artifact_prefix="$run/" "$run/corpus" >"$run/log" 2>&1
		echo $? >"$run/rc"
	}; } 2>&1 | awk '{ print $1 + $2 }')
	rc=$(cat "$run/rc")
	last=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$run/log" | tail -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log")
	cov=$(echo "$last" | grep -oE 'cov: [0-9]+' | grep -oE '[0-9]+')
	ft=$(echo "$last" | grep -oE 'ft: [0-9]+' | grep -oE '[0-9]+')
	repro=$(ls "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* 2>/dev/null | head -1)
	if [ "$rc" -ne 0 ] || [ -n "$repro" ]; then
		echo "FAIL $name: $(grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$run/log")"
		echo "  reproducer: ${repro:-none written (see $run/log)}"
		echo "  log: $run/log; reproduce with: $bin ${repro:-}"
		status=1
		break
	fi
	per_cpu=$(awk -v n="${execs:-0}" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%d", n / c; else print "?" }')
	echo "ok $name: ${execs:-?} inputs in ${seconds}s, ${rate:-?} exec/s (${per_cpu} per CPU second), cov ${cov:-?}, ft ${ft:-?}"
done
exit $status
