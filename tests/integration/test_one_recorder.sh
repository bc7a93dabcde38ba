#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One recorder for every namespace: the vApp's three tiers, each server on
# its own network-namespace host as in test_accuracy.sh, but recorded by a
# single vpath-record in the root namespace without --netns (filtered by the
# servers' port, so the machine's other traffic stays out).  Both ends of
# every call are in that one file, which lists the addresses of the root
# namespace only: every path must still be found right and complete, and
# none marked exact be wrong.  (Before the analyzer learned the namespaces'
# addresses from their sockets, every call between them was taken for a
# call to an unrecorded server: 33% right, 387 wrong paths marked exact.)
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

e2e_require "one recorder for every namespace (vApp, 3 tiers)"
seed=${VPATH_SEED:-$RANDOM}
echo "# seed $seed (set VPATH_SEED to repeat it)"
d=$(scratch_dir)
# accuracy.conf on a subnet and a port of its own: other tests may run the same topology.
net=10.$((200 + RANDOM % 50)).$((RANDOM % 250))
port=$((20000 + RANDOM % 40000))
sed -e "s/10\.200\.0\./$net./g" -e "s/:7000\b/:$port/g" tests/e2e/scenarios/accuracy.conf \
	>"$d/one.conf"
E2E_ONE_RECORDER=1
e2e_setup "$d/one.conf" || { not_ok "one recorder: hosts set up"; exit 0; }
on_exit 'e2e_keep_results "${VPATH_KEEP:-}"' # VPATH_KEEP=DIR keeps the run
if ! e2e_recorders_start || ! e2e_servers_start; then
	not_ok "one recorder: recorder and servers started"
	exit 0
fi
check "one recorder: the client ran without errors" \
	e2e_client_run --sessions 16 --requests 800 --seed "$seed"
e2e_servers_stop
check "one recorder: the recorder exits 0" e2e_recorders_stop
check "one recorder: one recording ($(ls "$E2E_DIR"/*.vpr | wc -l))" \
	test "$(ls "$E2E_DIR"/*.vpr | wc -l)" -eq 1
"$VPATH_ANALYZE" paths --json -v "$E2E_DIR"/*.vpr >"$E2E_DIR/found.json" 2>"$E2E_DIR/analyze.log"
check "one recorder: vpath-analyze exits 0" test $? -eq 0
grep -E '^[0-9]+ records' "$E2E_DIR/analyze.log" | sed 's/^/# /'
e2e_compare --tap --label "one recorder:"
