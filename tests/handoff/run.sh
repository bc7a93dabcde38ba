#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of a hand-off workload (README.md here): a client (SESSIONS
# keep-alive connections) -> a front end that hands each request's back-end
# calls to other threads or goroutines -> a back end, each on its own
# network-namespace host with its own vpath-record; then vpath-analyze on all
# recordings and tests/evloop/score.py against the client's truth.  Prints
# TAP lines and the figures.  Exit status: 0 when the gates pass, 1 when
# not, 2 when the run itself failed.  Needs root.
#
#   tests/handoff/run.sh --app python|java|go|go-exec|python-http|java-http
#                        [--requests N] [--sessions S] [--seed X] [--keep DIR]
# python: frontend_pool.py (ThreadPoolExecutor) -> tests/evloop/backend.py
# java:   HandoffFront.java (HttpServer, CompletableFuture) -> backend.py
# go:     goapp.go front (net/http, http.Client) -> goapp.go back (net/http)
# go-exec: the same, the binary not named (--go-binary): the recorders find
#         it when it is exec'ed after them (docs/recorder.md); with
#         HO_GO_LATE_MS=MS its probes come MS ms late (--test-go-late)
# python-http, java-http: the same hand-offs over HTTP/1.1, forwarding the
#         client's traceparent trace id on every call (frontend_http_pool.py,
#         HandoffFront.java --http) -> tests/evloop/backend_http.py,
#         recorded with --capture so the analyzer reads the ids
# The Java and Go programs are compiled into the scratch dir first, offline.
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl and
# every log are copied to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
# The client imports tests/evloop/client.py: no __pycache__ written into the tree.
export PYTHONDONTWRITEBYTECODE=1

HO_SRC=tests/handoff
HO_NET=10.203.0
HO_CLIENT_IP=$HO_NET.10
HO_FRONT=$HO_NET.1:7000
HO_BACKEND=$HO_NET.2:7100

source tests/evloop/workload.sh
# Hand-offs are followed through scheduler wake-ups (opt-in in vpath-record).
wl_record_opts=(--wakeups)
wl_options app 3,22 "$@"
app=$wl_kind wl_front_host=front
# Here a back-end call found as a root marked exact fails the run too.
wl_score_opts=(--gate-roots)
case $app in
python | java | go | go-exec | python-http | java-http) ;;
*) echo "run.sh: --app python|java|go|go-exec|python-http|java-http" >&2; exit 2 ;;
esac

# What this run needs that is not installed: the Debian package's name.
ho_missing() {
	case $app in
	java | java-http) command -v javac >/dev/null && command -v java >/dev/null || echo openjdk-17-jdk-headless ;;
	go | go-exec) command -v go >/dev/null || echo golang-go ;;
	esac
}

# Compiles the front end (and Go's back end) into $E2E_DIR/build, offline;
# sets front_cmd and back_cmd.
ho_build() {
	local build=$E2E_DIR/build
	mkdir -p "$build" || return 1
	case $app in
	python)
		front_cmd=(python3 "$HO_SRC/frontend_pool.py" "$HO_FRONT" "$HO_BACKEND")
		back_cmd=(python3 tests/evloop/backend.py --listen "$HO_BACKEND")
		;;
	java)
		javac -d "$build" "$HO_SRC/HandoffFront.java" >"$E2E_DIR/build.log" 2>&1 || return 1
		front_cmd=(java -cp "$build" HandoffFront "$HO_FRONT" "$HO_BACKEND")
		back_cmd=(python3 tests/evloop/backend.py --listen "$HO_BACKEND")
		;;
	python-http)
		front_cmd=(python3 "$HO_SRC/frontend_http_pool.py" "$HO_FRONT" "$HO_BACKEND")
		;;
	java-http)
		javac -d "$build" "$HO_SRC/HandoffFront.java" >"$E2E_DIR/build.log" 2>&1 || return 1
		front_cmd=(java -cp "$build" HandoffFront "$HO_FRONT" "$HO_BACKEND" --http)
		;;
	go | go-exec)
		GOCACHE=$build/cache GOPATH=$build/gopath GOPROXY=off GOFLAGS= GO111MODULE=off \
			go build -o "$build/goapp" "$HO_SRC/goapp.go" >"$E2E_DIR/build.log" 2>&1 ||
			return 1
		front_cmd=("$build/goapp" front "$HO_FRONT" "$HO_BACKEND")
		# Go's hand-offs are followed to >= 99% (docs/analyzer.md): a gate here
		# (not with HO_GO_LATE_MS: what comes before the probes is inferred)
		[ "$app" = go-exec ] && [ -n "${HO_GO_LATE_MS:-}" ] || wl_score_opts+=(--min-accuracy 99)
		# started after the recorders: their goroutines are followed from
		# exec, the binary named (go) or found at its exec (go-exec)
		if [ "$app" = go ]; then
			wl_record_opts+=(--go-binary "$build/goapp")
		else
			# -v: the recorders' logs say how long after its exec each was followed
			wl_record_opts+=(-v)
		fi
		# HO_GO_LATE_MS: the probes that late, as on a busy host
		if [ "$app" = go-exec ] && [ -n "${HO_GO_LATE_MS:-}" ]; then
			wl_record_opts+=(--test-go-late "$HO_GO_LATE_MS")
		fi
		back_cmd=("$build/goapp" back "$HO_BACKEND")
		;;
	esac
	case $app in
	*-http)
		back_cmd=(python3 tests/evloop/backend_http.py --listen "$HO_BACKEND")
		# The first bytes of each message on the front end's and the back
		# end's ports: the ids.
		wl_record_opts+=(--capture 256 --capture-port "${HO_FRONT##*:}"
			--capture-port "${HO_BACKEND##*:}")
		# The forwarded ids decide the hand-offs (README.md): a gate here
		wl_score_opts+=(--min-accuracy 99)
		;;
	esac
}

wl_prepare ho_missing ho_build handoff.json handoff $HO_CLIENT_IP $HO_FRONT $HO_BACKEND
http=(--http)
case $app in
python) http=() ;;
*-http) http+=(--traceparent) ;;
esac
e2e_log "handoff $app: seed $seed, $requests requests on $sessions sessions"
wl_run handoff.json "$HO_SRC/client.py" "${http[@]}" --target "$HO_FRONT" \
	-- "${back_cmd[@]}" -- "${front_cmd[@]}"
