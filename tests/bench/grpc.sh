#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Recorder cost on gRPC (issue 23): Go unary calls as fast as 16 goroutines
# make them on one grpc.ClientConn (h2c) to a grpc.Server, both goapp
# (tests/h2/gogrpc.go, compiled offline against Debian's
# golang-google-grpc-dev), over loopback, in interleaved runs with the
# recorder off and on, three ways: frames (the recorder as it starts: every
# operation and every frame header of the connection, VPR_H2_FRAME), go
# (also both processes' goroutines, --go-binary: uprobes on the Go
# runtime's scheduler, which gRPC's goroutines hit several times a call),
# capture (frames, and each HEADERS frame's block, --capture 256 on the
# server's port).
# Reports calls/s of each run and the on/off ratio (median of the pairs, min,
# max), and what the recorder lost.
#
# Environment: PAIRS (5), RUN_S (5 seconds per run), GOROUTINES (16).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/record_helpers.sh # free_port
. tests/bench/lib/recorder.sh

PAIRS=${PAIRS:-5}
RUN_S=${RUN_S:-5}
GOROUTINES=${GOROUTINES:-16}
VPRSTAT=$OUTPUT/tests/vprstat

why=$(bpf_unavailable)
[ -n "$why" ] || command -v go >/dev/null || why="needs golang-go"
[ -n "$why" ] || [ -d /usr/share/gocode/src/google.golang.org/grpc ] ||
	why="needs golang-google-grpc-dev"
if [ -n "$why" ]; then
	echo "gRPC benchmark skipped: $why"
	exit 0
fi
bench_scratch "gRPC benchmark" "$VPATH_RECORD" "$VPRSTAT"
gocache=$(realpath -m "$OUTPUT/go-cache")
mkdir -p "$gocache"
cp tests/handoff/goapp.go tests/h2/gogrpc.go "$dir/"
if ! (cd "$dir" && GOCACHE=$gocache GOPATH=/usr/share/gocode GOPROXY=off GOFLAGS= \
	GO111MODULE=off go build -o goapp goapp.go gogrpc.go) >"$dir/build.log" 2>&1; then
	echo "gRPC benchmark: goapp did not build:" >&2
	cat "$dir/build.log" >&2
	exit 1
fi
port=$(free_port)
addr=127.0.0.1:$port
"$dir/goapp" back-grpc "$addr" 2>"$dir/back.log" &
back=$!
on_exit "kill $back 2>/dev/null"
for _ in $(seq 50); do
	(: </dev/tcp/127.0.0.1/"$port") 2>/dev/null && break
	sleep 0.1
done

# load: one run of the client; prints calls/s.
load() {
	local line
	line=$("$dir/goapp" load-grpc "$addr" "$RUN_S" "$GOROUTINES") || return 1
	[ "$(kv failed "$line")" = 0 ] || echo "# $(kv failed "$line") calls failed" >&2
	kv calls_per_s "$line"
}
# load_on NAME ARGS...: a run under the recorder; prints "calls/s lost frames".
load_on() {
	local name=$1 cps st
	shift
	start_recorder "$dir/$name.vpr" "$@" || return 1
	cps=$(load)
	stop_recorder || return 1
	st=$("$VPRSTAT" "$dir/$name.vpr") || return 1
	echo "$cps $(kv lost "$st") $("$VPATH_ANALYZE" dump "$dir/$name.vpr" | grep -c '^h2_frame')"
	rm -f "$dir/$name.vpr"
}

echo "vpath gRPC benchmark: $GOROUTINES goroutines of unary calls on one h2c connection, loopback"
echo "$(date -u +%Y-%m-%d), $(nproc) CPUs, kernel $(uname -r), $PAIRS pairs of $RUN_S s"
printf '%-4s %-8s %10s %10s %6s %6s %9s\n' pair mode "off c/s" "on c/s" ratio lost frames
for mode in frames go capture; do
	case $mode in
	frames) args=() ;;
	go) args=(--go-binary "$dir/goapp") ;;
	capture) args=(--capture 256 --capture-port "$port") ;;
	esac
	ratios=()
	for i in $(seq "$PAIRS"); do
		if [ $((i % 2)) -eq 1 ]; then
			off=$(load) || exit 1
			on=$(load_on "$mode$i" "${args[@]}") || exit 1
		else
			on=$(load_on "$mode$i" "${args[@]}") || exit 1
			off=$(load) || exit 1
		fi
		read -r cps lost frames <<<"$on"
		r=$(calc "$cps / $off")
		ratios+=("$r")
		printf '%-4s %-8s %10.0f %10.0f %6.3f %6s %9s\n' "$i" "$mode" "$off" "$cps" "$r" "$lost" "$frames"
	done
	read -r med lo hi <<<"$(stats "${ratios[@]}")"
	echo "$mode: on/off calls/s median $med (min $lo, max $hi)"
done
