# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What the runs of tests/evloop/run.sh and tests/handoff/run.sh share: their
# options, a server started on a host, and the run itself (recorders, back
# end, front end, client, analysis, score.py).  Source tests/lib.sh and
# tests/e2e/harness.sh first.
#
#   wl_options KIND_OPTION HELP_LINES "$@"  sets wl_kind, requests, sessions,
#       seed, keep from --KIND_OPTION X --requests N --sessions S --seed X
#       --keep DIR; -h prints lines HELP_LINES (sed range) of $0
#   wl_prepare MISSING_FN BUILD_FN META WORKLOAD CLIENT_IP FRONT BACKEND [JSON]
#       the hosts and META, then BUILD_FN; exits 2 when the run cannot be
#   wl_run META CLIENT_ARGS -- BACK_CMD... -- FRONT_CMD...
#       with the hosts made (client, a front end's host named by
#       $wl_front_host, the back end's by $wl_back_host, and $wl_hop_host
#       if set) and $E2E_DIR/META written

# score.py compare's extra options (tests/handoff: --gate-roots)
wl_score_opts=()
# vpath-record's extra options (tests/handoff go: --go-binary)
wl_record_opts=()
# Set to a line the front end logs once its connections to the back end are
# open: the servers start first, the recorders once that line is logged
# (tests/h2 preexisting: a connection the recorders find already open).
wl_servers_first=
# The host of the front end's back end (tests/h2 nginx: the proxy's).
wl_back_host=backend
# A server behind the back end (tests/h2 nginx: the gRPC server nginx
# passes the calls to): its host, address and command, started first.
wl_hop_host= wl_hop_addr= wl_hop_cmd=()

wl_options() { # kind-option help-lines args...
	local kind_opt=$1 help=$2
	shift 2
	wl_kind= requests=1500 sessions=16 seed=$((RANDOM)) keep=${KEEP:-}
	while [ $# -gt 0 ]; do
		case $1 in
		"--$kind_opt") wl_kind=$2; shift ;;
		--requests) requests=$2; shift ;;
		--sessions) sessions=$2; shift ;;
		--seed) seed=$2; shift ;;
		--keep) keep=$2; shift ;;
		-h|--help) sed -n "${help}p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
		esac
		shift
	done
}

# Starts NAME on HOST in its own process group; returns once it listens.
wl_server_start() { # name host command...
	local name=$1 host=$2
	shift 2
	setsid ip netns exec "$(e2e_ns "$host")" "$@" >"$E2E_DIR/$name.log" 2>&1 </dev/null &
	E2E_SERVER_PIDS+=($!)
	# 20 s: a JVM in a busy machine's namespace
	_e2e_wait_line "$E2E_DIR/$name.log" "listening on" "$!" 20 "$name"
}

# Once what the run needs is installed (MISSING_FN prints what is missing,
# as e2e_servers_unavailable wants): the hosts client, $wl_front_host and
# $wl_back_host (and $wl_hop_host at $wl_hop_addr) at CLIENT_IP and the addresses FRONT and BACKEND, the run kept in
# $keep at exit, $E2E_DIR/META (score.py's description of the run: WORKLOAD,
# $wl_kind, the two addresses, and JSON's members if given), then BUILD_FN
# (which compiles into $E2E_DIR/build, logging to $E2E_DIR/build.log).
# Exits 2 when any of it fails.
wl_prepare() { # missing_fn build_fn meta workload client_ip front backend [json_members]
	local why
	why=$(e2e_servers_unavailable "$1")
	if [ -n "$why" ]; then
		echo "run.sh: $why" >&2
		exit 2
	fi
	e2e_hosts_setup client:$5 "$wl_front_host:${6%:*}" "$wl_back_host:${7%:*}" \
		${wl_hop_host:+"$wl_hop_host:${wl_hop_addr%:*}"} || exit 2
	on_exit 'e2e_keep_results "$keep"'
	printf '{"workload": "%s", "gateway": "%s", "gateway_addr": "%s", "backend_addr": "%s"%s}\n' \
		"$4" "$wl_kind" "$6" "$7" "${8:+, $8}" >"$E2E_DIR/$3"
	if ! "$2"; then
		e2e_log "building the $wl_kind front end failed:"
		tail -5 "$E2E_DIR/build.log" | sed 's/^/#   /' >&2
		exit 2
	fi
}

# Exit status: score.py's (0 gates pass, 1 a gate failed), 2 the run failed.
wl_run() { # meta client_script client_args... -- back_cmd... -- front_cmd...
	local meta=$1 client=$2 client_args=() back=() front=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do client_args+=("$1"); shift; done
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do back+=("$1"); shift; done
	shift
	front=("$@")
	# The recorders start first, so the pool's connections and their
	# ordinals are recorded from the start, as the client's are; with
	# wl_servers_first, once the front end's connections are open.
	[ -n "$wl_servers_first" ] || e2e_recorders_start "${wl_record_opts[@]}" || return 2
	if [ -n "$wl_hop_host" ]; then
		wl_server_start "$wl_hop_host" "$wl_hop_host" "${wl_hop_cmd[@]}" || return 2
	fi
	wl_server_start "$wl_back_host" "$wl_back_host" "${back[@]}" || return 2
	wl_server_start "$wl_front_host" "$wl_front_host" "${front[@]}" || return 2
	if [ -n "$wl_servers_first" ]; then
		_e2e_wait_line "$E2E_DIR/$wl_front_host.log" "$wl_servers_first" \
			"${E2E_SERVER_PIDS[-1]}" 20 "$wl_front_host" || return 2
		e2e_recorders_start "${wl_record_opts[@]}" || return 2
	fi
	setsid ip netns exec "$(e2e_ns client)" python3 "$client" "${client_args[@]}" \
		--sessions "$sessions" --requests "$requests" --seed "$seed" \
		--out "$E2E_DIR/truth.jsonl" \
		>"$E2E_DIR/client.json" 2>"$E2E_DIR/client.log" </dev/null &
	E2E_CLIENT_PID=$!
	e2e_client_wait "$(basename "$client")" || return 2
	e2e_log "client: $(cat "$E2E_DIR/client.json")"
	e2e_servers_stop
	e2e_recorders_stop || { e2e_log "a recorder failed"; return 2; }
	e2e_analyze || return 2
	python3 tests/evloop/score.py compare --dir "$E2E_DIR" --meta "$meta" "${wl_score_opts[@]}"
}

# The scorer must accept a perfect analysis made from the truth of the run
# kept in DIR and fail each broken copy of it (a call moved, dropped, a
# request lost, and with --gate-roots in wl_score_opts a call made a root
# that claims to be one); TAP lines named after LABEL.
wl_scorer_selfcheck() { # label dir meta
	local label=$1 dir=$2 meta=$3 what rc score=tests/evloop/score.py breaks=(move drop lose disagree)
	[ ${#wl_score_opts[@]} -eq 0 ] || breaks+=(orphan)
	python3 $score fake-found --dir "$dir" --meta "$meta" --out "$dir/perfect.json"
	python3 $score compare --dir "$dir" --meta "$meta" "${wl_score_opts[@]}" \
		--found "$dir/perfect.json" >"$dir/perfect.out"
	check "$label: the scorer accepts a perfect analysis" [ $? -eq 0 ]
	for what in "${breaks[@]}"; do
		rc=2
		if python3 $score break --dir "$dir" --meta "$meta" --found "$dir/perfect.json" \
			--what "$what" --out "$dir/$what.json"; then
			python3 $score compare --dir "$dir" --meta "$meta" "${wl_score_opts[@]}" \
				--found "$dir/$what.json" >"$dir/$what.out"
			rc=$?
		fi
		# 1 is "a gate failed"; 2 would be the scorer itself failing
		check "$label: the scorer fails the analysis with one call or request broken: $what" \
			[ $rc -eq 1 ]
	done
}

# One run of a test: RUN_SH with its options and --keep, then the scorer's
# self-checks on what it kept.
wl_test_run() { # label meta run.sh options...
	local label=$1 meta=$2 keep
	shift 2
	keep=$(scratch_dir)/run
	wl_kept=$keep # for the caller's own checks of the run
	"$@" --sessions 16 --keep "$keep"
	if [ $? -eq 2 ]; then
		not_ok "$label: the run itself failed (see the lines above)"
		return
	fi
	wl_scorer_selfcheck "$label" "$keep" "$meta"
}
