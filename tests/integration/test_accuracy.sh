#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# End-to-end accuracy (the vPath paper's section 4.3, at real concurrency):
# 3 tiers, 3 servers per tier mixing thread-per-connection, dispatcher +
# workers and epoll servers, each on its own network-namespace host, 48
# concurrent client sessions, 6000 requests, every host recorded.  Every
# path vpath-analyze finds is compared call by call with the client's ground
# truth: one TAP line per threading model, one overall.
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
exit 0
