#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# One end-to-end accuracy run: vApp servers and client on their own network
# namespace hosts, vpath-record on every host, vpath-analyze on all the
# recordings, and the paths found compared with the client's ground truth.
# Exit status: 0 when completeness and accuracy are 100%, 1 when not,
# 2 when the run itself failed.  Needs root.
#
#   tests/e2e/run.sh [--config FILE] [--sessions N] [--requests N | --duration SEC]
#                    [--seed N] [--tap] [--label TEXT] [--keep DIR]
#                    [--record-arg ARG]...   (passed to every vpath-record)
#                    [--logs N]   (vpath-record --logs N, servers log each visit,
#                                  loglines.py checks the lines' calls)
set -u
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

config=tests/e2e/scenarios/accuracy.conf
client_args=()
compare_args=()
keep=
record_args=()
logs=0 label=
sessions=32 seed=$((RANDOM))
amount=(--requests 3000)
while [ $# -gt 0 ]; do
	case $1 in
	--config) config=$2; shift ;;
	--sessions) sessions=$2; shift ;;
	--requests) amount=(--requests "$2"); shift ;;
	--duration) amount=(--duration "$2"); shift ;;
	--seed) seed=$2; shift ;;
	--tap) compare_args+=(--tap) ;;
	--label) compare_args+=(--label "$2"); label=$2; shift ;;
	--keep) keep=$2; shift ;;
	--record-arg) record_args+=("$2"); shift ;;
	--logs) record_args+=(--logs "$2"); logs=1; export E2E_LOG_VISITS=1; shift ;;
	-h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
client_args=(--sessions "$sessions" "${amount[@]}" --seed "$seed")

why=$(e2e_unavailable)
if [ -n "$why" ]; then
	echo "run.sh: $why" >&2
	exit 2
fi
e2e_setup "$config" || exit 2
on_exit 'e2e_keep_results "$keep"'
e2e_log "seed $seed, ${#E2E_HOSTS[@]} hosts, ${#E2E_SERVERS[@]} servers, client: ${client_args[*]}"
e2e_recorders_start "${record_args[@]}" || exit 2
e2e_servers_start || exit 2
e2e_client_run "${client_args[@]}" || exit 2
e2e_servers_stop
e2e_recorders_stop || { e2e_log "a recorder failed"; exit 2; }
e2e_log "client: $(cat "$E2E_DIR/client.json")"
e2e_analyze || exit 2
e2e_compare "${compare_args[@]}"
rc=$?
if [ "$logs" = 1 ]; then
	python3 "$E2E_SRC/loglines.py" "$E2E_DIR" --label "$label" || { [ $rc -eq 0 ] && rc=1; }
fi
if [ $rc -ne 0 ]; then
	e2e_analyzer_notes "$E2E_DIR"
fi
exit $rc
