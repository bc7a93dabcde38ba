#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Log lines of real servers (issue 26, tests/logs/README.md), each on its own
# network-namespace host, truth from each line's own request id:
# - nginx (one event-loop worker), access and error logs, its logs reopened
#   as housekeeping: every line marked exact is on its own request, no
#   housekeeping line marked exact; the share right is printed;
# - PostgreSQL, log_statement=all through the logging collector's pipe:
#   at least 99% of the statements carry exactly their own line, every exact
#   line right, autovacuum's lines on none;
# - a Node.js service, console.log to a pipe, with a timer's housekeeping
#   lines: as nginx.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

e2e_require "log lines of real servers"
keep=$(scratch_dir)
for kind in nginx postgres node; do
	bash tests/logs/servers.sh "$kind" --requests 600 --sessions 4 --seed 5 \
		--keep "$keep/$kind" >"$keep/$kind.out" 2>"$keep/$kind.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "missing:" "$keep/$kind.err"; then
		skip "$kind logs" "$(grep -o 'missing:.*' "$keep/$kind.err")"
		continue
	fi
	cat "$keep/$kind.out"
	[ $rc -ne 2 ] || { sed 's/^/# /' "$keep/$kind.err"; not_ok "$kind logs: the run failed"; }
done
