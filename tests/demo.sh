#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# `make demo` (as root): a small distributed system (tests/e2e/scenarios/
# demo.conf: 2 web servers, 3 app servers, 2 databases and a cache, each on
# its own network-namespace "host") serves 32 client sessions while
# vpath-record records every host.  vpath-analyze then rebuilds the path of
# every request from the recordings alone; the demo shows the slowest ones,
# the path patterns, and how the paths compare with the ground truth the
# test application keeps.  Everything it creates is removed at the end
# (KEEP=DIR make demo keeps the recordings and results in DIR).
set -u
cd "$(dirname "$0")/.."
source tests/lib.sh
source tests/e2e/harness.sh

CONFIG=tests/e2e/scenarios/demo.conf
REQUESTS=${REQUESTS:-4000}
SESSIONS=${SESSIONS:-32}
SEED=${SEED:-7}
KEEP=${KEEP:-} # a directory to keep the recordings, truth and analysis in

if [ -t 1 ]; then
	B=$'\e[1m' D=$'\e[2m' G=$'\e[32m' R=$'\e[31m' N=$'\e[0m'
else
	B= D= G= R= N=
fi
step() { printf '\n%s==> %s%s\n' "$B" "$*" "$N"; }
say() { printf '    %s\n' "$*"; }
die() {
	printf '%sdemo: %s%s\n' "$R" "$*" "$N" >&2
	exit 1
}
has_command() { "$VPATH_ANALYZE" --help 2>&1 | grep -qE "^ +$1( |$)"; }

why=$(e2e_unavailable)
[ -z "$why" ] || die "$why"
t0=$SECONDS
keep_results() {
	[ -n "$KEEP" ] || return 0
	mkdir -p "$KEEP" && cp -r "$E2E_DIR"/. "$KEEP"/ && echo "    results kept in $KEEP"
}

step "Building the hosts: one network namespace per server, joined by a bridge"
e2e_setup "$CONFIG" || die "cannot create the network namespaces"
on_exit keep_results
printf '    %s%-8s %-18s %-9s %s%s\n' "$D" host address model "threads" "$N"
while read -r kind name addr model; do
	[ "$kind" = server ] || continue
	case $model in
	thread) what="one thread per connection" ;;
	workers) what="dispatcher thread + worker pool" ;;
	epoll) what="one thread, epoll event loop" ;;
	esac
	printf '    %-8s %-18s %-9s %s\n' "$name" "$addr" "$model" "$what"
done < <("$VAPP" topology --config "$CONFIG")
printf '    %-8s %-18s\n' client "${E2E_HOST_IP[client]}"

step "Recording: one vpath-record per host (eBPF on TCP send/recv, in the kernel)"
e2e_recorders_start || die "a recorder did not start"
say "${#E2E_HOSTS[@]} recorders attached"
e2e_servers_start || die "a server did not start"

step "Load: $SESSIONS client sessions send $REQUESTS requests"
e2e_client_run --sessions "$SESSIONS" --requests "$REQUESTS" --seed "$SEED" ||
	die "the client failed"
say "$(e2e_client_stat requests) requests in $(e2e_client_stat seconds) s" \
	"($(e2e_client_stat throughput) requests/s), $(e2e_client_stat errors) errors"
e2e_servers_stop
e2e_recorders_stop || die "a recorder failed"
say "recordings: $(du -ch "$E2E_DIR"/*.vpr | tail -1 | cut -f1) in ${#E2E_HOSTS[@]} files"

step "Analysis: vpath-analyze reads the ${#E2E_HOSTS[@]} recordings, pairs the connections, rebuilds the paths"
e2e_analyze || die "vpath-analyze failed"
say "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["requests"]), "paths found")' "$E2E_DIR/found.json")"
vpr=("$E2E_DIR"/*.vpr)

if has_command paths; then
	step "The 3 slowest requests, hop by hop:  vpath-analyze paths --slowest 3"
	"$VPATH_ANALYZE" paths --slowest 3 "${vpr[@]}" | sed 's/^/    /'
fi
if has_command patterns; then
	step "The 3 path patterns that took the most time:  vpath-analyze patterns"
	"$VPATH_ANALYZE" patterns "${vpr[@]}" |
		awk '/^pattern / && ++n > 3 { exit } { print "    " $0 }'
fi

step "Ground truth: every reply carried its real path; compare call by call"
e2e_compare | sed 's/^/  /'
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ]; then
	printf '\n%s    every path right, and every path marked exact among them.%s  (%d s; all namespaces, processes and files removed)\n' \
		"$G" "$N" $((SECONDS - t0))
else
	printf '\n%s    some paths were wrong: see above%s (KEEP=DIR keeps them for a look)\n' \
		"$R" "$N"
fi
exit "$rc"
