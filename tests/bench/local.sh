#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Local files (issue 13 point 2, docs/format.md "Local files"): gen-synth
# --hosts LOCAL_HOSTS (16) writes a recording of LOCAL_RECORDS records (1M);
# `vpath-analyze local` turns each host's file into a local file.  Prints the
# sizes (recordings, local files, and of these the records and the calls),
# the CPU time of `local` for all hosts, then `paths` from the recordings and
# from the local files in ROUNDS (3) interleaved rounds: CPU and wall time of
# each, the median ratios, and whether every run printed the same bytes.
set -u
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-.output}
GEN=$OUTPUT/tests/gen-synth
A=$OUTPUT/vpath-analyze
HOSTS=${LOCAL_HOSTS:-16}
RECORDS=${LOCAL_RECORDS:-1000000}
ROUNDS=${ROUNDS:-3}
for b in "$GEN" "$A"; do
	[ -x "$b" ] || { echo "missing $b: run make tests-build"; exit 1; }
done
d=$(mktemp -d /tmp/vpath-local.XXXXXX)
trap 'rm -rf "$d"' EXIT

mkdir -p "$d/rec" "$d/loc"
gen=$("$GEN" --out "$d/rec" --hosts "$HOSTS" --events "$RECORDS" --concurrency 64) || exit 1
events=$(echo "$gen" | awk '{print $4}')
echo "# $HOSTS hosts, $events records, $(nproc) online CPUs (shared with whatever else runs here)"

# One local file per host; -v says how its bytes split.
: >"$d/local.err"
/usr/bin/time -f '%U %S' -o "$d/time" bash -c '
	for f in "$1"/*.vpr; do "$2" local -v -o "$3/$(basename "${f%.vpr}").vpl" "$f" || exit 1; done
' _ "$d/rec" "$A" "$d/loc" 2>>"$d/local.err" || { cat "$d/local.err"; exit 1; }
local_cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$d/time")
in=$(cat "$d"/rec/*.vpr | wc -c)
out=$(cat "$d"/loc/*.vpl | wc -c)
recs=$(sed -n 's/.*; records \([0-9]*\), calls.*/\1/p' "$d/local.err" | awk '{ s += $1 } END { print s + 0 }')
calls=$(sed -n 's/.*, calls \([0-9]*\))$/\1/p' "$d/local.err" | awk '{ s += $1 } END { print s + 0 }')
awk -v i="$in" -v o="$out" -v r="$recs" -v c="$calls" -v n="$events" -v t="$local_cpu" 'BEGIN {
	printf "recordings %d bytes (%.1f per record); local files %d bytes: %.1f%% of them ", i, i / n, o, 100 * o / i
	printf "(records %d bytes, %.1f per record; calls %d bytes)\n", r, r / n, c
	printf "local for every host: %.2f CPU seconds (%.0f records/s)\n", t, (t > 0 ? n / t : 0) }'

# run KIND FILES...: paths once; prints "cpu_s wall_s", the output in $d/out.KIND
run() {
	local kind=$1
	shift
	/usr/bin/time -f '%U %S %e' -o "$d/time" "$A" paths "$@" >"$d/out.$kind" || return 1
	awk '{ printf "%.2f %.2f\n", $1 + $2, $3 }' "$d/time"
}

printf '%-6s %-10s %8s %8s\n' round from cpu_s wall_s
declare -A cpus walls
same=yes
for r in $(seq 1 "$ROUNDS"); do
	for kind in recordings local; do
		if [ $kind = recordings ]; then files=("$d"/rec/*.vpr); else files=("$d"/loc/*.vpl); fi
		read -r cpu wall < <(run $kind "${files[@]}") || exit 1
		cpus[$kind]+="$cpu "
		walls[$kind]+="$wall "
		printf '%-6d %-10s %8.2f %8.2f\n' "$r" $kind "$cpu" "$wall"
	done
	cmp -s "$d/out.recordings" "$d/out.local" || same=no
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
awk -v a="$(echo "${cpus[local]}" | median)" -v b="$(echo "${cpus[recordings]}" | median)" \
	-v c="$(echo "${walls[local]}" | median)" -v w="$(echo "${walls[recordings]}" | median)" 'BEGIN {
	printf "median paths time, local files / recordings: CPU %.2fx, wall %.2fx\n",
		(b > 0 ? a / b : 0), (w > 0 ? c / w : 0) }'
echo "outputs identical from recordings and local files: $same"
[ $same = yes ]
