#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of an event-loop workload (README.md here): client.py (SESSIONS
# keep-alive connections) -> a gateway on one event loop (gateway.js on Node,
# or gateway_asyncio.py) with a pool of 3 back-end connections -> backend.py,
# each on its own network-namespace host with its own vpath-record; then
# vpath-analyze on all recordings and score.py against the client's truth.
# Prints TAP lines and the figures.  Exit status: 0 when the gates pass, 1
# when not, 2 when the run itself failed.  Needs root.
#
#   tests/evloop/run.sh --gateway node|asyncio [--requests N] [--sessions S]
#                       [--seed X] [--keep DIR]
# --keep DIR: the recordings, truth.jsonl, found.json, failures.jsonl and
# every log are copied to DIR.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

EV_SRC=tests/evloop
EV_NET=10.202.0
EV_CLIENT_IP=$EV_NET.10
EV_GATEWAY=$EV_NET.1:7000
EV_BACKEND=$EV_NET.2:7100

source tests/evloop/workload.sh
wl_options gateway 3,14 "$@"
gateway=$wl_kind wl_front_host=gateway
case $gateway in
node) gateway_cmd=(node "$EV_SRC/gateway.js") ;;
asyncio) gateway_cmd=(python3 "$EV_SRC/gateway_asyncio.py") ;;
*) echo "run.sh: --gateway node|asyncio" >&2; exit 2 ;;
esac

# What this run needs that is not installed (the Node.js gateway: nodejs).
ev_missing() {
	[ "$gateway" != node ] || command -v node >/dev/null || echo nodejs
}

ev_setup() {
	e2e_hosts_setup client:$EV_CLIENT_IP gateway:${EV_GATEWAY%:*} backend:${EV_BACKEND%:*} ||
		return 1
	printf '{"gateway": "%s", "gateway_addr": "%s", "backend_addr": "%s"}\n' \
		"$gateway" "$EV_GATEWAY" "$EV_BACKEND" >"$E2E_DIR/evloop.json"
}

why=$(e2e_servers_unavailable ev_missing)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
ev_setup || exit 2
on_exit 'e2e_keep_results "$keep"'
e2e_log "evloop $gateway: seed $seed, $requests requests on $sessions sessions"
wl_run evloop.json "$EV_SRC/client.py" --target "$EV_GATEWAY" \
	-- python3 "$EV_SRC/backend.py" --listen "$EV_BACKEND" \
	-- "${gateway_cmd[@]}" "$EV_GATEWAY" "$EV_BACKEND"
