#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vApp's stress scenario (tests/e2e/scenarios/stress.conf: 4 tiers, 12
# servers, every threading model in every tier, big messages), once and
# short, recorded with --logs 256 (issue 26), each server logging a line per
# visit that names its call: every path right, every path marked exact
# right, and no line marked exact on another call than the one it names
# (tests/e2e/loglines.py).  `make bench` (tests/bench/stress.sh) measures
# the same scenario's cost, without --logs.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

seed=${VPATH_SEED:-5}
e2e_require "vApp stress scenario with --logs"
echo "# seed $seed (set VPATH_SEED to change it)"
tests/e2e/run.sh --config tests/e2e/scenarios/stress.conf --sessions 64 --requests 800 \
	--seed "$seed" --logs 256 --tap --label "stress --logs 256:"
if [ $? -eq 2 ]; then
	not_ok "stress --logs 256: the end-to-end run itself failed (see the lines above)"
fi
exit 0
