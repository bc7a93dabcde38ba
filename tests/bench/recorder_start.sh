#!/usr/bin/env bash
# How long recorder builds take to start, compared in one run: seconds from
# launch to "recording to" (nearly all of it the kernel's verifier on the
# socket programs), and the instructions the verifier walked for each of
# them (bpf-insns), with the default options and with every option that
# adds code to the probes (test_bpf_budget's).  Builds alternate within a
# round and the first build of a round rotates, so that a busy spell of the
# machine hits every build alike.  docs/bench.md says how to build older
# commits for it.
#
# Environment: RECORDERS ("NAME=PATH ...", the vpath-record binaries; this
# build's alone when unset), ROUNDS (3).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/bench/lib/recorder.sh

RECORDERS=${RECORDERS:-this=$VPATH_RECORD}
ROUNDS=${ROUNDS:-3}
INSNS=$OUTPUT/tests/bpf-insns
FULL="--capture 256 --capture-port 50051 --wakeups --logs 64"

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	echo "recorder start skipped: $why"
	exit 0
fi
names=() bins=()
for nb in $RECORDERS; do
	names+=("${nb%%=*}") bins+=("${nb#*=}")
	if [ "${nb%%=*}" = "$nb" ] || [ ! -x "${nb#*=}" ]; then
		echo "recorder start: '$nb' is not NAME=PATH of an executable vpath-record" >&2
		exit 1
	fi
done
bench_scratch "recorder start" "$INSNS"

# start_once BIN ARGS...: "SECONDS SEND RECV", the time to "recording to"
# and the socket programs' verified instructions.
start_once() {
	local bin=$1 t0 t1 s r
	shift
	# Or the last run's line may be read before the shell truncates its log.
	rm -f "$dir/r.log" "$dir/r.vpr"
	t0=$(date +%s.%N)
	"$bin" -o "$dir/r.vpr" "$@" 2>"$dir/r.log" &
	rec_pid=$!
	echo "$rec_pid" >"$dir/recorder.pid"
	until grep -q "recording to" "$dir/r.log" 2>/dev/null; do
		if ! kill -0 "$rec_pid" 2>/dev/null; then
			echo "recorder start: $bin $* exited early:" >&2
			cat "$dir/r.log" >&2
			return 1
		fi
		sleep 0.01
	done
	t1=$(date +%s.%N)
	# The socket programs' links come after "recording to" (followers): wait for them.
	for _ in $(seq 100); do
		"$INSNS" "$rec_pid" >"$dir/insns" 2>/dev/null &&
			grep -q "prog=sock_send_lengt " "$dir/insns" &&
			grep -q "prog=sock_recv_lengt " "$dir/insns" && break
		sleep 0.1
	done
	stop_recorder >/dev/null
	s=$(awk '/^prog=sock_send_lengt / { split($2, v, "="); print v[2] }' "$dir/insns")
	r=$(awk '/^prog=sock_recv_lengt / { split($2, v, "="); print v[2] }' "$dir/insns")
	echo "$(calc "$t1 - $t0") ${s:-?} ${r:-?}"
}

declare -A secs insns
n=${#names[@]}
for round in $(seq "$ROUNDS"); do
	for k in $(seq 0 $((n - 1))); do
		i=$(((k + round - 1) % n))
		for opts in default full; do
			if [ "$opts" = default ]; then
				read -r t s r < <(start_once "${bins[$i]}") || exit 1
			else
				# shellcheck disable=SC2086 # FULL is a list of options
				read -r t s r < <(start_once "${bins[$i]}" $FULL) || exit 1
			fi
			secs[$i,$opts]+="$t "
			insns[$i,$opts]="$s $r"
		done
	done
done

echo "seconds to \"recording to\" (median min max of $ROUNDS), socket programs' verified_insns"
echo "full options: $FULL"
printf '%-10s %-8s %-22s %10s %10s\n' build options seconds send recv
for i in $(seq 0 $((n - 1))); do
	for opts in default full; do
		# shellcheck disable=SC2086 # the list of figures
		printf '%-10s %-8s %-22s %10s %10s\n' "${names[$i]}" "$opts" \
			"$(stats ${secs[$i,$opts]})" ${insns[$i,$opts]}
	done
done
