#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# What recording log lines costs (vpath-record --logs, issue 26), each ratio
# from interleaved runs of one invocation:
# - a log-heavy service: tests/logs' two threaded Python services (a line at
#   the start and end of each request, one per call, housekeeping lines every
#   5 ms), requests/s under the recorder with --logs 200 over without it;
# - a write-heavy process that is no log, as a database writing its WAL: dd
#   writing 4 KiB blocks to a file, its rate with a recorder running --logs
#   on other processes (not selected: the filter test per write) and with it
#   selected (every write recorded), over no recorder.
# Environment: PAIRS (3), REQUESTS (600), SESSIONS (6), WAL_BLOCKS (100000).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/record_helpers.sh

PAIRS=${PAIRS:-3}
REQUESTS=${REQUESTS:-600}
SESSIONS=${SESSIONS:-6}
WAL_BLOCKS=${WAL_BLOCKS:-100000}
export PYTHONDONTWRITEBYTECODE=1
why=$(bpf_unavailable)
if [ -n "$why" ]; then
	echo "logs benchmark skipped: $why"
	exit 0
fi
PY=$(command -v /usr/bin/python3 || command -v python3)
d=$(scratch_dir)

"$PY" tests/logs/services.py back "$d/back.log" "$d/back.port" &
back=$!
on_exit "kill $back"
wait_file "$d/back.port" || exit 1
"$PY" tests/logs/services.py front "$d/front.log" "$d/front.port" "$(cat "$d/back.port")" &
front=$!
on_exit "kill $front"
wait_file "$d/front.port" || exit 1
fport=$(cat "$d/front.port")

now() { date +%s.%N; }
# median of the arguments
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# service_rate [RECORDER ARGS...]: requests/s of one client run under a recorder of the services.
service_rate() {
	local t0 t1
	start_recorder "$d/s.vpr" "$d/s.log" -p "$front" -p "$back" "$@" || return 1
	t0=$(now)
	"$PY" tests/logs/client.py "$fport" "$REQUESTS" "$SESSIONS" 1 "$d/truth.jsonl" || return 1
	t1=$(now)
	stop_recorder >/dev/null
	awk -v n="$REQUESTS" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", n / (b - a)}'
}

# wal_rate MODE: 4 KiB writes/s of dd; MODE none, unselected (--logs for the services) or selected.
wal_rate() {
	local t0 t1 w
	rm -f "$d/wal" "$d/go"
	mkfifo "$d/go"
	sh -c "cat '$d/go' >/dev/null; exec dd if=/dev/zero of='$d/wal' bs=4k count=$WAL_BLOCKS 2>/dev/null" &
	w=$!
	case $1 in
	unselected) start_recorder "$d/w.vpr" "$d/w.log" --logs 200 -p "$front" || return 1 ;;
	selected) start_recorder "$d/w.vpr" "$d/w.log" --logs 200 -p "$w" || return 1 ;;
	esac
	t0=$(now)
	echo go >"$d/go"
	wait "$w"
	t1=$(now)
	[ "$1" = none ] || stop_recorder >/dev/null
	awk -v n="$WAL_BLOCKS" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", n / (b - a)}'
}

svc=() wal_u=() wal_s=()
echo "pair  service req/s: recorder  +logs  ratio   |  dd 4k writes/s: none  unselected  selected"
for i in $(seq "$PAIRS"); do
	a=$(service_rate) || { echo "the service run failed"; exit 1; }
	b=$(service_rate --logs 200) || { echo "the service run with --logs failed"; exit 1; }
	r=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
	n=$(wal_rate none) && u=$(wal_rate unselected) && s=$(wal_rate selected) || { echo "the dd runs failed"; exit 1; }
	ru=$(awk -v a="$n" -v b="$u" 'BEGIN {printf "%.3f", b / a}')
	rs=$(awk -v a="$n" -v b="$s" 'BEGIN {printf "%.3f", b / a}')
	svc+=("$r") wal_u+=("$ru") wal_s+=("$rs")
	printf '%-5s %26s %6s %6s   | %22s %11s %9s\n' "$i" "$a" "$b" "$r" "$n" "$u" "$s"
done
echo "median: service with --logs / without $(median "${svc[@]}"); dd with a recorder --logs on others / none $(median "${wal_u[@]}"), selected / none $(median "${wal_s[@]}")"
echo "log writes recorded in the last selected dd run: $(grep -o '[0-9]* log writes' "$d/w.log" | head -1)"
