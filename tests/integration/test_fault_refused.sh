#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Fault: a back end that is already gone.  The two vApp branches of
# tests/e2e/faults.sh, every host recorded; xa is killed before the client
# starts, so each call from fa to it is a connection refused: nothing of the
# call reaches the wire but a SYN.  fa makes one call and replies in two
# parts around it, so the client has a first part, then the close, of each
# request cut this way: that looks like a whole exchange, and only the
# refused connection says the request was cut.  Every such request must
# come out incomplete (or one-way), the fb branch right.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/e2e/faults.sh

e2e_require "fault: a back end already gone (connections refused)"
d=$(scratch_dir)
FAULT_SET=$'set parts_prob 1\nset max_calls 1'
FAULT_BEFORE_CLIENT='kill -KILL "$(fault_server_pid xa)"'
fault_start "$d" "fault refused" "the end" || exit 0
fault_finish "fault refused" 0
