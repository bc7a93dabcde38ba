#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Front ends that hand each request's back-end calls to other threads or
# goroutines (tests/handoff/README.md, issue 10): Python's
# ThreadPoolExecutor, Java's HttpServer with CompletableFuture over a pooled
# back end, Go's net/http with a shared http.Client, and the Python and Java
# ones over HTTP forwarding the client's trace id (python-http, java-http);
# 16 client sessions each, recorded on three network-namespace hosts and
# scored against the client's truth.  Gates: every request found, every path and every link
# marked exact right, no propagated id disagreeing with an exact rule, and
# for Go and the -http ones 99% of the paths right; overall accuracy is
# printed (goal 99%).  Then the scorer must accept
# a perfect analysis and fail each broken one.  It moves to
# tests/integration/ once the analyzer passes its gates.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/evloop/workload.sh
# Here a back-end call found as a root marked exact fails the run too.
wl_score_opts=(--gate-roots)

e2e_require "hand-off front ends"
java_missing() { command -v javac >/dev/null || echo openjdk-17-jdk-headless; }
go_missing() { command -v go >/dev/null || echo golang-go; }
seed=${VPATH_SEED:-11}
requests=${HANDOFF_REQUESTS:-1500}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests per front end"
for app in ${HANDOFF_APPS:-python java go python-http java-http}; do
	case $app in
	java | java-http) why=$(e2e_servers_unavailable java_missing) ;;
	go) why=$(e2e_servers_unavailable go_missing) ;;
	*) why= ;;
	esac
	if [ -n "$why" ]; then
		skip "handoff $app" "$why"
		continue
	fi
	wl_test_run "handoff $app" handoff.json tests/handoff/run.sh --app "$app" \
		--requests "$requests" --seed "$seed"
done
exit 0
