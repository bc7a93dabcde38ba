# Helpers for the recorder's integration tests (tests/integration/test_record*.sh).
# Source after tests/lib.sh.
TCPMSG=${TCPMSG:-$OUTPUT/tests/tcpmsg}
CHECK_TCPMSG="python3 tests/tools/check_tcpmsg.py"

# Skip the whole file (with a reason) when BPF cannot run here.
need_bpf() { # test name
	local why
	why=$(bpf_unavailable)
	if [ -n "$why" ]; then
		skip "$1" "$why"
		exit 0
	fi
}

# A TCP port nobody listens on in the current namespace.
free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		ss -Htan "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
	echo 0
}

# start_recorder OUT LOG [ARGS...]: run vpath-record in the background (PID in
# $RECORDER_PID), wait until it says it is recording.  Returns 1 if it did not.
# The wait is long (RECORDER_START_S, 60 s) because the verifier's time is
# the machine's: with every probe option on, loading takes 7 s on an idle
# 2-core machine and more than 10 s beside other work.  A start slower than
# 10 s is told, so the figure stays visible.
start_recorder() {
	local out=$1 log=$2 t0=$SECONDS
	shift 2
	"$VPATH_RECORD" -o "$out" "$@" 2>"$log" &
	RECORDER_PID=$!
	on_exit "kill -KILL $RECORDER_PID"
	for _ in $(seq $((${RECORDER_START_S:-60} * 20))); do
		if grep -q "recording to" "$log"; then
			[ $((SECONDS - t0)) -le 10 ] || echo "# the recorder took $((SECONDS - t0)) s to start ($*)"
			return 0
		fi
		kill -0 "$RECORDER_PID" 2>/dev/null || return 1
		sleep 0.05
	done
	echo "# the recorder did not start in ${RECORDER_START_S:-60} s ($*): $(tail -1 "$log")"
	return 1
}

# stop_recorder: SIGINT, wait; returns the recorder's exit status.
stop_recorder() {
	kill -INT "$RECORDER_PID" 2>/dev/null
	wait "$RECORDER_PID"
}

# wait_file FILE: until FILE exists (10 s at most).
wait_file() {
	for _ in $(seq 200); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# wait_for FILE PATTERN [SECONDS]: until FILE contains PATTERN (10 s at most).
wait_for() {
	for _ in $(seq $((${3:-10} * 20))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# tcpmsg_exchange DIR ADDR PORT ROUNDS [server-prefix [client-prefix]]: one
# server and one client; logs in DIR/server.log and DIR/client.log.  The
# prefixes run the programs elsewhere, e.g. "ip netns exec ns1".
tcpmsg_exchange() {
	local dir=$1 addr=$2 port=$3 rounds=$4 spre=${5:-} cpre=${6:-} spid
	$spre "$TCPMSG" server -a "$addr" -p "$port" >"$dir/server.log" 2>&1 &
	spid=$!
	on_exit "kill -KILL $spid"
	wait_for "$dir/server.log" listening || return 1
	$cpre "$TCPMSG" client -a "$addr" -p "$port" -n "$rounds" >"$dir/client.log" 2>&1 || return 1
	wait "$spid"
}

# record_exchange_test NAME ADDR CHECK_FLAGS [RECORDER ARGS...]: record a
# loopback tcpmsg exchange (filtered to its port) and check it exactly.
record_exchange_test() {
	local name=$1 addr=$2 flags=$3 d port rounds=12 rc
	shift 3
	d=$(scratch_dir)
	port=$(free_port)
	must_start_recorder "$name" "$d/rec.vpr" "$d/rec.log" --port "$port" "$@"
	check "$name: tcpmsg exchange runs" tcpmsg_exchange "$d" "$addr" "$port" "$rounds"
	stop_recorder
	rc=$?
	check "$name: recorder stops cleanly on SIGINT" test "$rc" -eq 0
	check "$name: summary line printed" grep -q "records, 0 lost" "$d/rec.log"
	"$VPATH_ANALYZE" dump "$d/rec.vpr" >"$d/dump.txt" 2>"$d/dump.err"
	check "$name: recording is intact" grep -q "^status  ok" "$d/dump.txt"
	check "$name: header has the host's boot id" \
		grep -q "boot_id=$(cat /proc/sys/kernel/random/boot_id)" "$d/dump.txt"
	check "$name: own addresses recorded" grep -q "^addr .* 127.0.0.1/8" "$d/dump.txt"
	# shellcheck disable=SC2086
	$CHECK_TCPMSG "$d/dump.txt" "$d/client.log" "$d/server.log" "$rounds" --name "$name" $flags
}

# start_traffic DIR PORT PAUSE_US: a tcpmsg server and a client exchanging
# until the test ends (killed at exit); waits until they are connected.
start_traffic() {
	local dir=$1 port=$2 pause=$3
	"$TCPMSG" server -a 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 &
	on_exit "kill -KILL $!"
	wait_for "$dir/server.log" listening || return 1
	"$TCPMSG" client -a 127.0.0.1 -p "$port" -n 0 -i "$pause" >"$dir/client.log" 2>&1 &
	on_exit "kill -KILL $!"
	wait_for "$dir/client.log" "^client pid"
}

# must_start_recorder NAME OUT LOG [ARGS...]: start_recorder, or report and exit.
must_start_recorder() {
	local name=$1
	shift
	start_recorder "$@" && return 0
	not_ok "$name: recorder starts ($(head -c 300 "$2"))"
	exit 1
}

# connect_and_wait DIR PORT ROUNDS [PREFIX]: a tcpmsg server and a client that
# connect, then wait for DIR/go before exchanging ROUNDS rounds.  Sets
# SERVER_PID and CLIENT_PID; returns when the connection is accepted.
# PREFIX runs both elsewhere (e.g. "ip netns exec ns1").
connect_and_wait() {
	local dir=$1 port=$2 rounds=$3 pre=${4:-}
	$pre "$TCPMSG" server -a 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 &
	SERVER_PID=$!
	on_exit "kill -KILL $SERVER_PID"
	wait_for "$dir/server.log" listening || return 1
	$pre "$TCPMSG" client -a 127.0.0.1 -p "$port" -n "$rounds" -w "$dir/go" >"$dir/client.log" 2>&1 &
	CLIENT_PID=$!
	on_exit "kill -KILL $CLIENT_PID"
	wait_for "$dir/server.log" "^server pid" && wait_for "$dir/client.log" "^client pid"
}

# build_gorecord DIR: tests/golang/gorecord.go built into DIR/gorecord and,
# stripped, DIR/gorecord-stripped (offline; the build cache kept in
# $OUTPUT, so that only the first run compiles the runtime).  Logs in
# DIR/build.log; 1 when it does not build.
build_gorecord() {
	local dir=$1 cache
	cache=$(realpath -m "$OUTPUT/go-cache")
	mkdir -p "$dir/src" "$cache"
	cp tests/golang/gorecord.go "$dir/src/"
	printf 'module gorecord\ngo 1.19\n' >"$dir/src/go.mod"
	(cd "$dir/src" && GOCACHE=$cache GOPATH=$dir/gopath GOPROXY=off GOFLAGS= \
		go build -o "$dir/gorecord" . && go build -ldflags='-s -w' -o "$dir/gorecord-stripped" .) \
		>"$dir/build.log" 2>&1
}
