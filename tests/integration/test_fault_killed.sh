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

e2e_require "fault: traced process killed mid-request"
d=$(scratch_dir)
fault_start "$d" "fault killed" "the kill" || exit 0
answered=$(wc -l <"$E2E_DIR/truth.jsonl")
kill -KILL "$(fault_server_pid xa)"
fault_finish "fault killed" "$answered"
