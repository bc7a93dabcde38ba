# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault scenarios on the end-to-end harness (source tests/lib.sh and
# tests/e2e/harness.sh first).  Two independent branches, each on its own
# hosts: client -> fa -> xa and client -> fb -> xb.  The client's sessions
# alternate between fa and fb, so a fault at xa (killed, its namespace gone)
# ends the fa sessions at their first failed request while the fb sessions
# run on: what comes after the fault is known right, and what the fault cut
# is what vpcompare.py fault judges.
#
#   fault_config FILE        the topology, on a random subnet and port ($FAULT_PORT), and
#                            the `set` lines in FAULT_SET after its own (later lines win)
#   fault_client_start ARGS  the client in the background (truth as e2e_client_run)
#   fault_client_wait        waits for it; failed requests are expected, not an error
#   fault_wait_answered N    until the client has N answers (the load runs), 60 s at most
#   fault_server_pid NAME    the pid of a running vApp server
#   fault_judge ARGS         vpcompare.py fault on $E2E_DIR (TAP lines)

fault_config() { # file
	local net=10.$((200 + RANDOM % 50)).$((RANDOM % 250))
	FAULT_PORT=$((20000 + RANDOM % 40000))
	# xa holds each request up to 3 ms, so some are in flight when it dies.
	cat >"$1" <<EOF
server fa thread     $net.11:$FAULT_PORT xa
server fb epoll      $net.12:$FAULT_PORT xb
server xa workers:2  $net.21:$FAULT_PORT
server xb thread     $net.22:$FAULT_PORT
client $net.2 fa fb
set call_prob 1
set call_decay 0.5
set max_calls 2
set parts_prob 0.3
set max_delay_us 3000
${FAULT_SET:-}
EOF
}

fault_client_start() { # client options...
	setsid ip netns exec "$(e2e_ns "$E2E_CLIENT_HOST")" "$VAPP" client --config "$E2E_CONFIG" \
		--out "$E2E_DIR/truth.jsonl" "$@" >"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" \
		</dev/null &
	E2E_CLIENT_PID=$!
}

fault_client_wait() {
	wait "$E2E_CLIENT_PID"
	E2E_CLIENT_PID=
	[ -s "$E2E_DIR/truth.jsonl" ]
}

fault_wait_answered() { # n
	local i
	for ((i = 0; i < 600; i++)); do
		[ "$({ wc -l <"$E2E_DIR/truth.jsonl"; } 2>/dev/null || echo 0)" -ge "$1" ] && return 0
		kill -0 "$E2E_CLIENT_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

fault_server_pid() { # name
	local i
	for i in "${!E2E_SERVERS[@]}"; do
		if [ "${E2E_SERVERS[$i]}" = "$1" ]; then
			echo "${E2E_SERVER_PIDS[$i]}"
			return 0
		fi
	done
	return 1
}

fault_judge() { # vpcompare fault options (--tap, --label X, --cut SERVER)...
	python3 "$E2E_SRC/vpcompare.py" fault --truth "$E2E_DIR/truth.jsonl" \
		--found "$E2E_DIR/found.json" --topology "$E2E_DIR/topology.json" "$@"
}

# fault_start DIR LABEL WHAT [RECORDER]: hosts, recorders (RECORDER in place
# of vpath-record), servers and the client up, and the load running before
# the fault (WHAT); FAULT_BEFORE_CLIENT, when set, is run (eval) between the
# servers and the client.  Returns 1, having said why, when the run cannot start.
fault_start() {
	local dir=$1 label=$2 what=$3 recorder=${4:-$VPATH_RECORD}

	fault_config "$dir/fault.conf"
	e2e_setup "$dir/fault.conf" || { not_ok "$label: hosts set up"; return 1; }
	on_exit 'e2e_keep_results "${VPATH_KEEP:-}"' # VPATH_KEEP=DIR keeps the run
	VPATH_RECORD=$recorder e2e_recorders_start || { not_ok "$label: recorders started"; return 1; }
	e2e_servers_start || { not_ok "$label: servers started"; return 1; }
	eval "${FAULT_BEFORE_CLIENT:-}"
	fault_client_start --sessions 8 --duration 10 --think-us 4000 --seed "${VPATH_SEED:-$RANDOM}"
	check "$label: the load runs before $what" fault_wait_answered 150
	return 0
}

# fault_finish LABEL ANSWERED: the client, servers and recorders stopped,
# the recorders quiet, the analysis judged (requests after line ANSWERED of
# the truth came after the fault).
fault_finish() {
	local label=$1 answered=$2

	check "$label: the client ran to the end" fault_client_wait
	e2e_servers_stop
	check "$label: every recorder exits 0" e2e_recorders_stop
	check "$label: the recorders said nothing but their start and summary" \
		sh -c "! grep -hv -e '^vpath-record: recording to' -e '^vpath-record: [0-9]* records, 0 lost' '$E2E_DIR'/*.record.log"
	e2e_analyze
	check "$label: vpath-analyze exits 0" test $? -eq 0
	fault_judge --tap --label "$label:" --after-line "$answered"
}
