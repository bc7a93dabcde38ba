#!/usr/bin/env bash
# Analyzer throughput and memory as the recording grows: gen-synth writes a
# four-host recording (64 client threads, about 40 requests in flight, about
# 500K records per second of recording, a clock tick per second) of 1M and
# of 10M records;
# `vpath-analyze patterns` reads each.  Prints records per second of CPU time
# (one core: the analyzer is single-threaded) and of wall time, and peak RSS.
# Targets: >= 5M records/s; RSS at 10M <= 1.5x RSS at 1M (memory follows
# concurrency, not recording length).
set -u
cd "$(dirname "$0")/../.." || exit 1
OUTPUT=${OUTPUT:-.output}
GEN=$OUTPUT/tests/gen-synth
A=$OUTPUT/vpath-analyze
SIZES=${ANALYZER_BENCH_SIZES:-"1000000 10000000"}
for b in "$GEN" "$A"; do
	[ -x "$b" ] || { echo "missing $b: run make tests-build"; exit 1; }
done
d=$(mktemp -d /tmp/vpath-bench.XXXXXX)
trap 'rm -rf "$d"' EXIT

printf '%-10s %10s %8s %8s %14s %14s %10s\n' records requests cpu_s wall_s "records/s(cpu)" "records/s(wall)" rss_MB
declare -A rss
for n in $SIZES; do
	rm -f "$d"/*.vpr
	gen=$("$GEN" --out "$d" --events "$n" --concurrency 64) || exit 1
	events=$(echo "$gen" | awk '{print $4}')
	want=$(echo "$gen" | awk '{print $2}')
	# /usr/bin/time -f: %U+%S CPU seconds, %e wall seconds, %M peak RSS in KB.
	/usr/bin/time -f '%U %S %e %M' -o "$d/time" "$A" patterns "$d"/*.vpr >"$d/out" || exit 1
	read -r user sys wall kb <"$d/time"
	reqs=$(awk '/^pattern /{s += $3} END {print s}' "$d/out")
	rss[$n]=$kb
	[ "$reqs" = "$want" ] || echo "WARNING: found $reqs requests, the generator wrote $want"
	awk -v n="$events" -v r="$reqs" -v u="$user" -v s="$sys" -v w="$wall" -v kb="$kb" 'BEGIN {
		c = u + s
		printf "%-10d %10d %8.2f %8.2f %14.0f %14.0f %10.1f\n", n, r, c, w,
			(c > 0 ? n / c : 0), (w > 0 ? n / w : 0), kb / 1024 }'
done
set -- $SIZES
if [ $# -ge 2 ]; then
	awk -v a="${rss[$1]}" -v b="${rss[$2]}" -v x="$1" -v y="$2" \
		'BEGIN { printf "peak RSS at %d records / at %d records: %.2fx (target <= 1.5x)\n", y, x, b / a }'
fi
