# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What the tests of the relay workload share (test_pgbouncer.sh,
# test_haproxy.sh): a run of run.sh, and the proof that its scorer can
# fail.  Sourced after tests/lib.sh and tests/e2e/harness.sh.
RELAY_APP=10.209.0.1:8000 RELAY_ADDR=10.209.0.2:6432 RELAY_DB=10.209.0.3:5432

# Skips the test WHAT unless the harness can run; sets seed (VPATH_SEED, 7),
# requests and keep (a scratch directory for the runs).
relay_test_start() { # what requests
	e2e_require "$1"
	seed=${VPATH_SEED:-7}
	requests=$2
	echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
	keep=$(scratch_dir)
}

# One run; its name, then run.sh's options.  Skips the test WHAT when a server is missing.
relay_run() { # what name options...
	e2e_workload_run "$1" "$keep" "$2" tests/pgbouncer/run.sh --requests "$requests" \
		--seed "$seed" "${@:3}"
}

# The scorer must fail the analysis of run NAME with one call moved or one request lost.
relay_scorer_can_fail() { # what name
	local what rc
	for what in move lose; do
		rc=2
		[ -f "$keep/$2/found.json" ] && python3 tests/pgbouncer/score.py \
			--truth "$keep/$2/truth.jsonl" --found "$keep/$2/found.json" --app $RELAY_APP \
			--relay $RELAY_ADDR --db $RELAY_DB --break $what >/dev/null
		rc=$?
		check "$1: the scorer fails the analysis with one call or request broken: $what" \
			[ $rc -eq 1 ]
	done
}
