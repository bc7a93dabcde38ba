#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Go found at exec, without naming it (issue 27, point 1; docs/recorder.md,
# "Programs started later"): the recorders start first, then the Go net/http
# front end and back end of tests/handoff (--app go-exec: no --go-binary),
# 16 sessions.  The recorders must find goapp when it is exec'ed and follow
# its goroutines: gated at 99% of the paths right, every path and link
# marked exact right (without the goroutines, 48.5-51% came out right).
# Each recorder must say it followed goapp, and how long after its exec the
# probes were in place (printed, not gated: the machine is shared).  The
# named path (--go-binary) is test_handoff's go run and test_record_go's.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh
source tests/evloop/workload.sh
wl_score_opts=(--gate-roots)

e2e_require "Go found at exec"
go_missing() { command -v go >/dev/null || echo golang-go; }
why=$(e2e_servers_unavailable go_missing)
if [ -n "$why" ]; then
	skip "Go found at exec" "$why"
	exit 0
fi
seed=${VPATH_SEED:-11}
requests=${HANDOFF_REQUESTS:-1500}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
wl_test_run "Go found at exec" handoff.json tests/handoff/run.sh --app go-exec \
	--requests "$requests" --seed "$seed"
for host in front backend; do
	log=$wl_kept/$host.record.log
	check "Go found at exec: the $host's recorder follows goapp from its exec" \
		grep -q "Go binary .*/goapp (PID [0-9]*, started after the recorder).*goroutines followed" "$log"
	sed -n "s/.*Go binary .*\/goapp (PID [0-9]*, started after the recorder): \(probes in place .*\)/# Go found at exec, $host: \1/p" "$log"
done
exit 0
