#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# End-to-end accuracy (the vPath paper's section 4.3, at real concurrency):
# 3 tiers, 3 servers per tier mixing thread-per-connection, dispatcher +
# workers and epoll servers, each on its own network-namespace host, 48
# concurrent client sessions, 6000 requests, every host recorded.  Every
# path vpath-analyze finds is compared call by call with the client's ground
# truth: one TAP line per threading model, one overall.  Then a smaller run
# recorded with --logs 256 (issue 26), each server logging a line per visit
# that names its call: still 100% right and exact, and no line marked exact
# on another call than the one it names (tests/e2e/loglines.py).
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

seed=${VPATH_SEED:-20241}
e2e_require "end-to-end accuracy on vApp (3 tiers, 3 threading models)"
echo "# seed $seed (set VPATH_SEED to change it)"
tests/e2e/run.sh --config tests/e2e/scenarios/accuracy.conf --sessions 48 --requests 6000 \
	--seed "$seed" --tap --label "accuracy:"
rc=$?
if [ $rc -eq 2 ]; then
	not_ok "accuracy: the end-to-end run itself failed (see the lines above)"
fi
tests/e2e/run.sh --config tests/e2e/scenarios/accuracy.conf --sessions 32 --requests 1000 \
	--seed "$((seed + 1))" --logs 256 --tap --label "accuracy --logs 256:"
if [ $? -eq 2 ]; then
	not_ok "accuracy --logs 256: the end-to-end run itself failed (see the lines above)"
fi
exit 0
