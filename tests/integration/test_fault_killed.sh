#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault: a traced process killed (SIGKILL) mid-request.  Two vApp branches
# (tests/e2e/faults.sh), every host recorded; the back end xa is killed while
# the client runs.  The recorders go on and exit 0; every request the client
# saw answered comes out right, before and after the kill; the requests that
# were in flight through xa come out incomplete, never as a complete path.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/e2e/faults.sh

why=$(e2e_unavailable)
if [ -n "$why" ]; then
	skip "fault: traced process killed mid-request" "$why"
	exit 0
fi
d=$(scratch_dir)
fault_config "$d/fault.conf"
e2e_setup "$d/fault.conf" || { not_ok "fault killed: hosts set up"; exit 0; }
on_exit 'e2e_keep_results "${VPATH_KEEP:-}"' # VPATH_KEEP=DIR keeps the run
e2e_recorders_start || { not_ok "fault killed: recorders started"; exit 0; }
e2e_servers_start || { not_ok "fault killed: servers started"; exit 0; }
fault_client_start --sessions 8 --duration 10 --think-us 4000 --seed "${VPATH_SEED:-$RANDOM}"
check "fault killed: the load runs before the kill" fault_wait_answered 150
answered=$(wc -l <"$E2E_DIR/truth.jsonl")
kill -KILL "$(fault_server_pid xa)"
check "fault killed: the client ran to the end" fault_client_wait
e2e_servers_stop
check "fault killed: every recorder exits 0" e2e_recorders_stop
check "fault killed: the recorders said nothing but their start and summary" \
	sh -c "! grep -hv -e '^vpath-record: recording to' -e '^vpath-record: [0-9]* records, 0 lost' '$E2E_DIR'/*.record.log"
e2e_analyze
check "fault killed: vpath-analyze exits 0" test $? -eq 0
fault_judge --tap --label "fault killed:" --after-line "$answered"
