#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A threaded service with a pool of 8 connections -> PgBouncer ->
# PostgreSQL, 1-4 queries per request, each carrying its request's id, 8
# keep-alive sessions (tests/pgbouncer/README.md).  Recorded with --capture 256
# on PgBouncer's two ports, the calls PgBouncer makes are linked by the
# bytes they forward: in transaction pooling (8 client connections on 2
# server connections) and in session pooling (a server connection for each
# client connection, all on PgBouncer's one event loop), every request
# found, every path and link marked exact right, at least 99% of the paths
# right (the statements the scorer compares are read from the calls'
# captured bytes, so a run without capture cannot be scored).  A third run,
# in transaction pooling, has 30% of the requests also run one statement
# that is the same for all (two clients' identical queries): those calls
# must not be linked by their bytes, and every path and link marked exact
# stays right.  A fourth, shorter (PGBOUNCER_HASH_REQUESTS, 500), records
# PgBouncer's host with --capture-hash 256 instead: keyed hashes of each
# message's first bytes and no payload record (checked), the calls linked
# by the hashes, with the same gates.  Then the scorer must fail a copy with
# a call moved or a request lost.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/pgbouncer/lib.sh

relay_test_start "PgBouncer" "${PGBOUNCER_REQUESTS:-2000}"
relay_run pgbouncer run --min-accuracy 99
check "pgbouncer, transaction pooling, --capture 256: the gates pass (99% right, every exact path and link right)" \
	[ $? -eq 0 ]
relay_run pgbouncer session --pool-mode session --min-accuracy 99
check "pgbouncer, session pooling, --capture 256: the gates pass (99% right, every exact path and link right)" \
	[ $? -eq 0 ]
relay_run pgbouncer shared --shared 30
check "pgbouncer, a statement shared by 30% of the requests: linked by its bytes at most on its first run, every exact path and link right" \
	[ $? -eq 0 ]
relay_run pgbouncer hashed --hash 256 --requests "${PGBOUNCER_HASH_REQUESTS:-500}" \
	--min-accuracy 99
check "pgbouncer, transaction pooling, its host with --capture-hash 256: no payload recorded, the gates pass (99% right, every exact path and link right)" \
	[ $? -eq 0 ]
relay_scorer_can_fail pgbouncer run
exit 0
