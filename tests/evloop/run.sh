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
#   tests/evloop/run.sh --gateway KIND [--requests N] [--sessions S] [--seed X]
#                       [--keep DIR]
# KIND: node, asyncio (JSON lines); node-http, asyncio-http: the HTTP
# variants (gateway_http.js, gateway_http_asyncio.py; backend_http.py;
# clients sending a traceparent each), recorded with --capture on both
# ports so the analyzer reads the ids; node-http-noprop,
# asyncio-http-noprop: the same gateways not forwarding the id (each call
# starts a trace of its own).
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
# The scripts import each other (tests/handoff/client.py, gateway_http_asyncio.py): no __pycache__ in the tree.
export PYTHONDONTWRITEBYTECODE=1
wl_options gateway 3,20 "$@"
gateway=$wl_kind wl_front_host=gateway
client_cmd=("$EV_SRC/client.py") backend_cmd=(python3 "$EV_SRC/backend.py")
case $gateway in
node) gateway_cmd=(node "$EV_SRC/gateway.js" "$EV_GATEWAY" "$EV_BACKEND") ;;
asyncio) gateway_cmd=(python3 "$EV_SRC/gateway_asyncio.py" "$EV_GATEWAY" "$EV_BACKEND") ;;
node-http|node-http-noprop|asyncio-http|asyncio-http-noprop)
	case $gateway in
	node-*) gateway_cmd=(node "$EV_SRC/gateway_http.js" "$EV_GATEWAY" "$EV_BACKEND") ;;
	*) gateway_cmd=(python3 "$EV_SRC/gateway_http_asyncio.py" "$EV_GATEWAY" "$EV_BACKEND") ;;
	esac
	[ "${gateway%-noprop}" = "$gateway" ] || gateway_cmd+=(--no-forward)
	client_cmd=(tests/handoff/client.py --http --traceparent)
	backend_cmd=(python3 "$EV_SRC/backend_http.py")
	# The first bytes of each message on the gateway's and the back end's ports: the ids.
	wl_record_opts=(--capture 256 --capture-port "${EV_GATEWAY##*:}" --capture-port "${EV_BACKEND##*:}")
	;;
*) echo "run.sh: --gateway node|asyncio|node-http|node-http-noprop|asyncio-http|asyncio-http-noprop" >&2; exit 2 ;;
esac

# What this run needs that is not installed (the Node.js gateway: nodejs).
ev_missing() {
	[ "${gateway%%-*}" != node ] || command -v node >/dev/null || echo nodejs
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
wl_run evloop.json "${client_cmd[@]}" --target "$EV_GATEWAY" \
	-- "${backend_cmd[@]}" --listen "$EV_BACKEND" \
	-- "${gateway_cmd[@]}"
