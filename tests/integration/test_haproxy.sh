#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A threaded service with a pool of 8 connections -> haproxy in TCP mode (2
# threads, each client connection spliced to a server connection of its
# own) -> PostgreSQL, 1-4 queries per request, each carrying its request's
# id, 8 keep-alive sessions (tests/pgbouncer/README.md).  Recorded with
# --capture 256 on haproxy's two ports, the calls haproxy makes are linked
# by the bytes they forward: every request found, every path and link
# marked exact right, at least 99% of the paths right.  A second run has
# 30% of the requests also run one statement that is the same for all:
# those calls must not be linked by their bytes, and every path and link
# marked exact stays right.  Then the scorer must fail a copy with a call
# moved or a request lost.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/pgbouncer/lib.sh

relay_test_start "haproxy in TCP mode" "${HAPROXY_REQUESTS:-2000}"
relay_run haproxy run --relay haproxy --min-accuracy 99
check "haproxy, TCP mode, --capture 256: the gates pass (99% right, every exact path and link right)" \
	[ $? -eq 0 ]
relay_run haproxy shared --relay haproxy --shared 30
check "haproxy, a statement shared by 30% of the requests: linked by its bytes at most on its first run, every exact path and link right" \
	[ $? -eq 0 ]
relay_scorer_can_fail haproxy run
exit 0
