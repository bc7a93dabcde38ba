#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the PHP stack (stack.sh): client --TLS 1.3--> nginx --FastCGI
# keep-alive--> PHP-FPM --a new TLS mysqli connection per request--> MariaDB,
# on network-namespace hosts with one vpath-record each; vpath-analyze on all
# recordings, and check.py comparing its paths with the ground truth from
# the client, the app and the servers' own logs.  Prints TAP lines with the
# figures.  Exit status: 0 when everything matched (issue 17's bars: every
# path right one request at a time, >= 99% with --conns > 1), 1 when not, 2
# when the run itself failed.  Needs root.
#
#   tests/phpstack/run.sh [--requests N] [--conns N] [--seed N] [--reconnect P]
#                         [--label TEXT] [--keep DIR]
# --reconnect P: the share of requests after which the client ends its TLS
# connection (close_notify) and opens a new one (0.02).
# KEEP=DIR in the environment works like --keep: the recordings, found.json,
# truth.jsonl, failures.jsonl and every server's config and log are kept.
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/phpstack/stack.sh

requests=1000 conns=8 seed=$((RANDOM)) reconnect=0.02 label=phpstack: keep=${KEEP:-}
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift ;;
	--conns) conns=$2; shift ;;
	--seed) seed=$2; shift ;;
	--reconnect) reconnect=$2; shift ;;
	--label) label=$2; shift ;;
	--keep) keep=$2; shift ;;
	-h|--help) sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

why=$(ps_unavailable)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
ps_setup || exit 2
on_exit 'e2e_keep_results "$keep"'
t0=$SECONDS
ps_servers_start "$conns" || exit 2
e2e_log "servers up in $((SECONDS - t0)) s; seed $seed, $requests requests on $conns connections"
e2e_recorders_start || exit 2
ps_client_start --conns "$conns" --requests "$requests" --seed "$seed" --reconnect "$reconnect"
ps_client_wait || exit 2
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_log "client: $(cat "$E2E_DIR/client.json")"
ps_servers_stop
e2e_analyze || exit 2
min_right=99
[ "$conns" -gt 1 ] || min_right=100
ps_check --label "$label" --min-right "$min_right"
