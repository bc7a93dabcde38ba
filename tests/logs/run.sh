#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One run of the log-lines workload (README.md here): services.py back and
# front on loopback, both recorded by one vpath-record --logs (and --capture
# on front's port, for the truth's request ids), client.py's requests, then
# vpath-analyze paths --json and score.py.  Prints TAP lines and figures.
#
#   tests/logs/run.sh [--requests N] [--sessions S] [--seed X] [--keep DIR]
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/tools/record_helpers.sh
export PYTHONDONTWRITEBYTECODE=1
need_bpf "logs workload"

requests=600 sessions=6 seed=1 keep=
while [ $# -gt 0 ]; do
	case $1 in
	--requests) requests=$2; shift 2 ;;
	--sessions) sessions=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

PY=$(command -v /usr/bin/python3 || command -v python3)
d=$(scratch_dir)
"$PY" tests/logs/services.py back "$d/back.log" "$d/back.port" &
back=$!
on_exit "kill $back"
wait_file "$d/back.port" || { not_ok "logs: back started"; exit 1; }
"$PY" tests/logs/services.py front "$d/front.log" "$d/front.port" "$(cat "$d/back.port")" &
front=$!
on_exit "kill $front"
wait_file "$d/front.port" || { not_ok "logs: front started"; exit 1; }
fport=$(cat "$d/front.port")

start_recorder "$d/rec.vpr" "$d/rec.log" --logs 200 --capture 64 --capture-port "$fport" \
	-p "$front" -p "$back"
check "logs: recorder started" test $? -eq 0
"$PY" tests/logs/client.py "$fport" "$requests" "$sessions" "$seed" "$d/truth.jsonl"
check "logs: client done" test $? -eq 0
sleep 0.3
stop_recorder
check "logs: recorder stopped cleanly" test $? -eq 0
"$VPATH_ANALYZE" paths --json "$d/rec.vpr" >"$d/found.json" 2>"$d/analyze.log"
check "logs: analysis succeeds" test $? -eq 0
"$PY" tests/logs/score.py "$d/truth.jsonl" "$d/found.json"
status=$?
if [ -n "$keep" ]; then
	mkdir -p "$keep" && cp "$d"/* "$keep"/
fi
exit $status
