#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Event-loop gateways that multiplex requests over a pooled back end
# (tests/evloop/README.md): the Node.js gateway and the asyncio gateway, each
# with 16 client sessions, recorded on three network-namespace hosts and
# scored against the client's truth.  Gates: every request found, every path
# and every link marked exact right; overall accuracy is printed (goal 95%).
# The HTTP variants (node-http: http server, keep-alive http.Agent with 3
# sockets; asyncio-http: the same by hand on asyncio streams; traceparent
# forwarded, recorded with --capture) must also have at least 95% of their
# paths right, by the propagated ids, and no id may disagree with an exact
# rule; node-http-noprop, the Node gateway not forwarding them, falls back
# to the other rules.
# Then the scorer must accept a perfect analysis and fail each broken one.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/evloop/workload.sh
# A back-end call found as a root marked exact fails the run too.
wl_score_opts=(--gate-roots)

e2e_require "event-loop gateways with a pooled back end"
node_missing() { command -v node >/dev/null || echo nodejs; }
node_why=$(e2e_servers_unavailable node_missing)
seed=${VPATH_SEED:-11}
requests=${EVLOOP_REQUESTS:-1500}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests per gateway"
for gateway in node asyncio node-http node-http-noprop asyncio-http; do
	wl_score_opts=(--gate-roots)
	[ "${gateway%-http}" = "$gateway" ] || wl_score_opts+=(--min-accuracy 95)
	if [ "${gateway%%-*}" = node ] && [ -n "$node_why" ]; then
		skip "evloop node" "$node_why"
		continue
	fi
	wl_test_run "evloop $gateway" evloop.json tests/evloop/run.sh --gateway "$gateway" \
		--requests "$requests" --seed "$seed"
done
exit 0
