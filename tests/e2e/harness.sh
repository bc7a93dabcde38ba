# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# End-to-end harness, sourced by the accuracy test, the stress benchmark and
# the demo: every vApp server on its own "host" (a network namespace with its
# own address, all joined by a bridge in one more namespace), the client on
# its own host, one vpath-record per host running in the root namespace and
# filtering by netns in the kernel.  Source tests/lib.sh first (on_exit).
#
#   e2e_setup CONFIG          hosts from the topology; scratch dir in $E2E_DIR
#   e2e_hosts_setup NAME:IP...  hosts for servers of another kind (not vApp)
#   e2e_servers_unavailable FN  why real servers cannot run (FN lists what is missing)
#   e2e_recorders_start       one recorder per host; returns once all attached
#   e2e_servers_start         every server; returns once all listen
#   e2e_spawn NAME HOST ADDR CMD...  a server of another kind; returns once it listens
#   e2e_client_run ARGS...    the client; truth in $E2E_DIR/truth.jsonl
#   e2e_servers_stop; e2e_recorders_stop
#   e2e_analyze               $E2E_DIR/found.json from all recordings
#   e2e_compare ARGS...       vpcompare.py compare (table, exit status)
# Everything it makes is undone at exit, on failure and on Ctrl-C.

E2E_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VAPP=${VAPP:-$OUTPUT/vapp}
E2E_PREFIX="vpt$$-"
E2E_BRIDGE="${E2E_PREFIX}br"
E2E_HOSTS=()              # host names; the netns is $E2E_PREFIX$host
declare -A E2E_HOST_IP=() # host -> ip
declare -A E2E_SERVER_HOST=()
E2E_SERVERS=()
E2E_CLIENT_HOST=client
E2E_SERVER_PIDS=()
E2E_RECORDER_PIDS=()
E2E_CLIENT_PID=
E2E_CONFIG=
E2E_DIR=
E2E_NETNS_MADE=()

e2e_log() { echo "# $*" >&2; }

e2e_ns() { echo "$E2E_PREFIX$1"; }

# Kills a process group (the harness starts everything with setsid) and reaps it.
_e2e_kill_group() { # signal pid
	kill "-$1" -- "-$2" 2>/dev/null || kill "-$1" "$2" 2>/dev/null
}

_e2e_wait_gone() { # pid timeout_tenths
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		_e2e_kill_group KILL "$1"
	fi
	wait "$1" 2>/dev/null
	return 0
}

_e2e_teardown() {
	local p ns
	[ -z "$E2E_CLIENT_PID" ] || _e2e_kill_group KILL "$E2E_CLIENT_PID"
	for p in "${E2E_SERVER_PIDS[@]}"; do _e2e_kill_group KILL "$p"; done
	for p in "${E2E_RECORDER_PIDS[@]}"; do _e2e_kill_group INT "$p"; done
	for p in "${E2E_RECORDER_PIDS[@]}"; do _e2e_wait_gone "$p" 50; done
	for ns in "${E2E_NETNS_MADE[@]}"; do
		# anything still living in one of our namespaces is ours
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done
	E2E_SERVER_PIDS=() E2E_RECORDER_PIDS=() E2E_NETNS_MADE=()
}

_e2e_add_host() { # name ip
	local host=$1 ip=$2 ns idx=${#E2E_HOSTS[@]}
	ns=$(e2e_ns "$host")
	ip netns add "$ns" || return 1
	E2E_NETNS_MADE+=("$ns")
	ip -n "$E2E_BRIDGE" link add "v$idx" type veth peer name eth0 netns "$ns" &&
		ip -n "$E2E_BRIDGE" link set "v$idx" master br0 up &&
		ip -n "$ns" addr add "$ip/24" dev eth0 &&
		ip -n "$ns" link set eth0 up &&
		ip -n "$ns" link set lo up || return 1
	E2E_HOSTS+=("$host")
	E2E_HOST_IP[$host]=$ip
}

# The namespace with the bridge that joins every host.
_e2e_bridge_add() {
	ip netns add "$E2E_BRIDGE" || return 1
	E2E_NETNS_MADE+=("$E2E_BRIDGE")
	ip -n "$E2E_BRIDGE" link add br0 type bridge &&
		ip -n "$E2E_BRIDGE" link set br0 up
}

# Hosts given by name and address, for scenarios that bring their own
# servers instead of a vApp topology; scratch dir in $E2E_DIR.
e2e_hosts_setup() { # name:ip...
	local h
	E2E_DIR=$(scratch_dir)
	on_exit _e2e_teardown
	_e2e_bridge_add || return 1
	for h in "$@"; do
		_e2e_add_host "${h%%:*}" "${h#*:}" || return 1
	done
}

# Creates the hosts of a topology: servers sharing an ip share a host.
e2e_setup() { # config
	local config=$1 kind name addr model ip host
	declare -A host_of_ip=()
	E2E_CONFIG=$config
	E2E_DIR=$(scratch_dir)
	on_exit _e2e_teardown
	"$VAPP" topology --config "$config" --json >"$E2E_DIR/topology.json" || return 1
	_e2e_bridge_add || return 1
	while read -r kind name addr model; do
		if [ "$kind" = client ]; then
			_e2e_add_host "$E2E_CLIENT_HOST" "$name" || return 1
			continue
		fi
		ip=${addr%:*}
		host=${host_of_ip[$ip]:-}
		if [ -z "$host" ]; then
			host=$name
			host_of_ip[$ip]=$host
			_e2e_add_host "$host" "$ip" || return 1
		fi
		E2E_SERVERS+=("$name")
		E2E_SERVER_HOST[$name]=$host
	done < <("$VAPP" topology --config "$config")
}

# Waits until FILE has a line matching PATTERN while PID lives.
_e2e_wait_line() { # file pattern pid timeout_s what
	local i
	for ((i = 0; i < $4 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		if ! kill -0 "$3" 2>/dev/null; then
			e2e_log "$5 exited early:"
			sed 's/^/#   /' "$1" >&2
			return 1
		fi
		sleep 0.1
	done
	e2e_log "$5 not ready after $4 s:"
	sed 's/^/#   /' "$1" >&2
	return 1
}

# Waits until every process in _e2e_names/_e2e_pids has logged PATTERN.
_e2e_wait_ready() { # pattern timeout_s log-suffix what
	local i
	for i in "${!_e2e_names[@]}"; do
		_e2e_wait_line "$E2E_DIR/${_e2e_names[$i]}.$3.log" "$1" "${_e2e_pids[$i]}" "$2" \
			"$4 ${_e2e_names[$i]}" || return 1
	done
}

e2e_recorders_start() { # extra recorder options...
	local host
	E2E_RECORDER_PIDS=()
	if [ -n "${E2E_ONE_RECORDER:-}" ]; then
		# Every namespace, so only the servers' ports: other traffic of the machine stays out.
		local ports=()
		for host in $("$VAPP" topology --config "$E2E_CONFIG" | awk '$1 == "server" { sub(/.*:/, "", $3); print $3 }' | sort -u); do
			ports+=(--port "$host")
		done
		setsid "$VPATH_RECORD" --host machine -o "$E2E_DIR/machine.vpr" "${ports[@]}" "$@" \
			2>"$E2E_DIR/machine.record.log" </dev/null &
		E2E_RECORDER_PIDS+=($!)
		_e2e_names=(machine) _e2e_pids=("${E2E_RECORDER_PIDS[@]}")
		_e2e_wait_ready "recording to" 60 record "vpath-record for"
		return
	fi
	for host in "${E2E_HOSTS[@]}"; do
		local args=("$@")
		# A host recorded otherwise than the rest: E2E_HOST_ARGS[host] (words), if set.
		if declare -p E2E_HOST_ARGS >/dev/null 2>&1 && [ -n "${E2E_HOST_ARGS[$host]:-}" ]; then
			read -r -a args <<<"${E2E_HOST_ARGS[$host]}"
		fi
		setsid "$VPATH_RECORD" --netns "/run/netns/$(e2e_ns "$host")" --host "$host" \
			-o "$E2E_DIR/$host.vpr" "${args[@]}" 2>"$E2E_DIR/$host.record.log" </dev/null &
		E2E_RECORDER_PIDS+=($!)
	done
	_e2e_names=("${E2E_HOSTS[@]}") _e2e_pids=("${E2E_RECORDER_PIDS[@]}")
	_e2e_wait_ready "recording to" 60 record "vpath-record for"
}

# SIGINT: the recorder drains its ring buffer, flushes and exits.
e2e_recorders_stop() {
	local p rc=0
	for p in "${E2E_RECORDER_PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done
	for p in "${E2E_RECORDER_PIDS[@]}"; do
		wait "$p" || rc=1
	done
	E2E_RECORDER_PIDS=()
	return $rc
}

# Starts NAME on HOST in its own process group (a server of another kind
# than vApp, its output in $E2E_DIR/NAME.log); returns once it listens on
# ADDR, or once it printed a line when ADDR is empty (a worker), waiting
# E2E_SPAWN_WAIT tenths of a second at most (300).
e2e_spawn() { # name host addr command...
	local name=$1 host=$2 addr=$3 i
	shift 3
	setsid ip netns exec "$(e2e_ns "$host")" "$@" >"$E2E_DIR/$name.log" 2>&1 </dev/null &
	E2E_SERVER_PIDS+=($!)
	for ((i = 0; i < ${E2E_SPAWN_WAIT:-300}; i++)); do
		if [ -n "$addr" ]; then
			ip netns exec "$(e2e_ns "$host")" ss -Hltn "src $addr" 2>/dev/null | grep -q . &&
				return 0
		else
			[ -s "$E2E_DIR/$name.log" ] && return 0
		fi
		kill -0 "${E2E_SERVER_PIDS[-1]}" 2>/dev/null || break
		sleep 0.1
	done
	e2e_log "$name did not start:"
	tail -20 "$E2E_DIR/$name.log" | sed 's/^/#   /' >&2
	return 1
}

# E2E_LOG_VISITS=1: each server logs a line per visit (vapp server --log-visits).
e2e_servers_start() {
	local name opts=()
	[ "${E2E_LOG_VISITS:-0}" = 1 ] && opts+=(--log-visits)
	E2E_SERVER_PIDS=()
	for name in "${E2E_SERVERS[@]}"; do
		setsid ip netns exec "$(e2e_ns "${E2E_SERVER_HOST[$name]}")" \
			"$VAPP" server --config "$E2E_CONFIG" --name "$name" "${opts[@]}" \
			2>"$E2E_DIR/$name.server.log" </dev/null &
		E2E_SERVER_PIDS+=($!)
	done
	_e2e_names=("${E2E_SERVERS[@]}") _e2e_pids=("${E2E_SERVER_PIDS[@]}")
	_e2e_wait_ready "listening on" 10 server "vapp server"
}

e2e_servers_stop() {
	local p
	for p in "${E2E_SERVER_PIDS[@]}"; do _e2e_kill_group TERM "$p"; done
	for p in "${E2E_SERVER_PIDS[@]}"; do _e2e_wait_gone "$p" 30; done
	E2E_SERVER_PIDS=()
}

# Runs the client on its host in the foreground; its summary JSON goes to
# $E2E_DIR/client.json.  Fails if any request failed.
# In the background, so that a signal to the harness is handled at once.
e2e_client_run() { # client options...
	setsid ip netns exec "$(e2e_ns "$E2E_CLIENT_HOST")" "$VAPP" client --config "$E2E_CONFIG" \
		--out "$E2E_DIR/truth.jsonl" "$@" >"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" \
		</dev/null &
	E2E_CLIENT_PID=$!
	e2e_client_wait "vapp client"
}

# Waits for the client started in the background ($E2E_CLIENT_PID); on
# failure shows the end of its log.  Returns the client's exit status.
e2e_client_wait() { # what to call it in the message
	wait "$E2E_CLIENT_PID"
	local rc=$?
	E2E_CLIENT_PID=
	if [ $rc -ne 0 ]; then
		e2e_log "$1 failed ($rc):"
		tail -5 "$E2E_DIR/client.log" | sed 's/^/#   /' >&2
	fi
	return $rc
}

# Copies everything the run made ($E2E_DIR) to DIR before cleanup removes it;
# nothing when DIR is empty.  Register with on_exit.
e2e_keep_results() { # DIR
	[ -n "$1" ] || return 0
	mkdir -p "$1" && cp -r "$E2E_DIR"/. "$1"/ && e2e_log "results kept in $1"
}

# A field of the client's summary line.
e2e_client_stat() { # field
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$E2E_DIR/client.json" "$1"
}

e2e_analyze() {
	"$VPATH_ANALYZE" paths --json "$E2E_DIR"/*.vpr >"$E2E_DIR/found.json" \
		2>"$E2E_DIR/analyze.log"
	local rc=$?
	if [ $rc -ne 0 ]; then
		e2e_log "vpath-analyze failed ($rc):"
		head -5 "$E2E_DIR/analyze.log" | sed 's/^/#   /' >&2
	fi
	return $rc
}

# For a failure's report: what the analyzer says of each host of DIR's
# recordings (records further out of order than its reorder window, late)
# and its warnings, as TAP comments.
e2e_analyzer_notes() { # dir
	"$VPATH_ANALYZE" patterns -v "$1"/*.vpr 2>&1 >/dev/null | grep -E '^(host |warning)' |
		sed 's/^/#   /'
	# The recorders' summaries: records lost, or written out of time order.
	cat "$1"/*.record.log 2>/dev/null | grep -v 'recording to' | sed 's/^/#   /'
}

e2e_compare() { # vpcompare options (--tap, --label X)...
	python3 "$E2E_SRC/vpcompare.py" compare --truth "$E2E_DIR/truth.jsonl" \
		--found "$E2E_DIR/found.json" --topology "$E2E_DIR/topology.json" \
		--failures "$E2E_DIR/failures.jsonl" "$@"
}

# One run of a workload's run.sh (tests/pgbouncer; tests/queue has its own) from a test:
# with --keep KEEP/NAME, its figures as TAP comments, its errors too when
# the run itself failed; when a server is missing the test skips WHAT and
# ends.  Returns run.sh's status.
e2e_workload_run() { # what keep name run.sh options...
	local what=$1 keep=$2 name=$3 script=$4 rc
	shift 4
	"$script" --keep "$keep/$name" "$@" >"$keep/$name.out" 2>"$keep/$name.err"
	rc=$?
	sed 's/^/# /' "$keep/$name.out"
	if [ $rc -eq 2 ] && grep -q "missing:" "$keep/$name.err"; then
		skip "$what" "$(grep -o 'missing:.*' "$keep/$name.err")"
		exit 0
	fi
	[ $rc -ne 2 ] || sed 's/^/# /' "$keep/$name.err"
	return $rc
}

# e2e_require NAME: when the harness cannot run here, says the test NAME was
# skipped and why, and ends it.
e2e_require() {
	local why
	why=$(e2e_unavailable)
	[ -z "$why" ] && return 0
	skip "$1" "$why"
	exit 0
}

# Why the end-to-end harness cannot run here, or nothing when it can.
e2e_unavailable() {
	local why
	why=$(bpf_unavailable)
	if [ -n "$why" ]; then
		echo "$why"
	elif ! command -v python3 >/dev/null; then
		echo "needs python3 (scripts/install-deps.sh)"
	elif [ ! -x "$VPATH_RECORD" ] || [ ! -x "$VPATH_ANALYZE" ] || [ ! -x "$VAPP" ]; then
		echo "not built: run make"
	elif ! "$VPATH_ANALYZE" --help 2>&1 | grep -qw paths; then
		echo "vpath-analyze has no 'paths' command yet"
	elif ! ip netns list >/dev/null 2>&1; then
		echo "no network namespaces (ip netns)"
	fi
}

# Why a scenario of real servers cannot run here, or nothing: MISSING_FN
# prints what is missing, one word or line each; missing servers are
# installed with scripts/install-deps.sh first (CI starts from a fresh machine).
e2e_servers_unavailable() { # missing_fn
	local why missing
	why=$(e2e_unavailable)
	if [ -n "$why" ]; then
		echo "$why"
		return
	fi
	missing=$("$1")
	if [ -n "$missing" ]; then
		e2e_log "installing the servers: $(echo $missing)"
		scripts/install-deps.sh >&2 || true
		missing=$("$1")
	fi
	[ -z "$missing" ] || echo "missing: $(echo $missing) (scripts/install-deps.sh)"
}
