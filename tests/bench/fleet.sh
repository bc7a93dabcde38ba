#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# The analyzer on many hosts (issue 13): gen-synth --hosts writes a recording
# of FLEET_HOSTS hosts (16; 64 client threads, about 40 requests in flight)
# of FLEET_RECORDS records (2M); `vpath-analyze patterns --threads T` reads it
# at T = 1, 2 and the online CPUs, and without --threads (the default, which
# times one thread against all as it goes), ROUNDS (3) interleaved rounds, so
# machine noise hits every T alike.  Prints records/s of wall and CPU time per
# run, the median wall speed-up over --threads 1 (issue 27: --threads 2 at
# least 1.5x; the default never below 1), and checks that every T printed the
# same, and the median CPU time of each T (what threads cost), and the share
# of CPU time in parallel batches at --threads 1 (VPATH_THREAD_STATS).  Then peak RSS with the default threads at 4, 16 and
# 64 hosts of the same load, and at 16 hosts for twice the records: memory
# follows what is in flight, not how many hosts or how long.
set -u
cd "$(dirname "$0")/../.."
OUTPUT=${OUTPUT:-.output}
GEN=$OUTPUT/tests/gen-synth
A=$OUTPUT/vpath-analyze
HOSTS=${FLEET_HOSTS:-16}
RECORDS=${FLEET_RECORDS:-2000000}
ROUNDS=${ROUNDS:-3}
CPUS=$(nproc)
for b in "$GEN" "$A"; do
	[ -x "$b" ] || { echo "missing $b: run make tests-build"; exit 1; }
done
d=$(mktemp -d /tmp/vpath-fleet.XXXXXX)
trap 'rm -rf "$d"' EXIT

# run T FILES...: one analysis; prints "cpu_s wall_s rss_kb" and keeps the output as $d/out.T
run() {
	local t=$1 opt=(--threads "$1")
	shift
	[ "$t" = default ] && opt=()
	/usr/bin/time -f '%U %S %e %M' -o "$d/time" "$A" patterns "${opt[@]}" "$@" >"$d/out.$t" || return 1
	awk '{ printf "%.2f %.2f %d\n", $1 + $2, $3, $4 }' "$d/time"
}

mkdir -p "$d/rec"
gen=$("$GEN" --out "$d/rec" --hosts "$HOSTS" --events "$RECORDS" --concurrency 64) || exit 1
events=$(echo "$gen" | awk '{print $4}')
threads="1 2"
[ "$CPUS" -gt 2 ] && threads="$threads $CPUS"
threads="$threads default"
echo "# $HOSTS hosts, $events records, $CPUS online CPUs (shared with whatever else runs here)"
printf '%-6s %-8s %8s %8s %16s %16s\n' round threads cpu_s wall_s "records/s(wall)" "records/s(cpu)"
declare -A walls cpus
same=yes
for r in $(seq 1 "$ROUNDS"); do
	for t in $threads; do
		read -r cpu wall kb < <(run "$t" "$d"/rec/*.vpr) || exit 1
		walls[$t]+="$wall "
		cpus[$t]+="$cpu "
		cmp -s "$d/out.$t" "$d/out.1" || same=no
		awk -v r="$r" -v t="$t" -v n="$events" -v c="$cpu" -v w="$wall" 'BEGIN {
			printf "%-6d %-8s %8.2f %8.2f %16.0f %16.0f\n", r, t, c, w,
				(w > 0 ? n / w : 0), (c > 0 ? n / c : 0) }'
	done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
m1=$(echo "${walls[1]}" | median)
for t in $threads; do
	[ "$t" = 1 ] && continue
	mt=$(echo "${walls[$t]}" | median)
	awk -v t="$t" -v a="$m1" -v b="$mt" 'BEGIN {
		printf "median wall time --threads 1 / %s: %.2fx%s\n", (t == "default" ? "the default" : "--threads " t),
			(b > 0 ? a / b : 0), (t == 2 ? " (target >= 1.5)" : t == "default" ? " (target >= 1)" : "") }'
done
for t in $threads; do
	printf 'median CPU seconds %s: %s\n' "$([ "$t" = default ] && echo "the default" || echo "--threads $t")" \
		"$(echo "${cpus[$t]}" | median)"
done
echo "outputs identical for every thread count: $same"
# The part that can run in parallel, by thread CPU time (what other load does not change).
share=$(VPATH_THREAD_STATS=1 "$A" patterns --threads 1 "$d"/rec/*.vpr 2>&1 >/dev/null |
	sed -n 's/.*(\([0-9.]*\)%).*/\1/p')
awk -v s="${share:-0}" 'BEGIN { printf "parallel share at --threads 1: %.1f%%, Amdahl bound at 2 threads %.2fx\n",
	s, 1 / (1 - s / 100 + s / 200) }'

echo
echo "# peak RSS (default threads), the same load (64 client threads) on more hosts, and longer"
printf '%-6s %10s %10s %10s\n' hosts records wall_s rss_MB
for spec in "4 $RECORDS" "16 $RECORDS" "64 $RECORDS" "16 $((2 * RECORDS))"; do
	set -- $spec
	rm -rf "$d/rec" && mkdir -p "$d/rec"
	gen=$("$GEN" --out "$d/rec" --hosts "$1" --events "$2" --concurrency 64) || exit 1
	/usr/bin/time -f '%e %M' -o "$d/time" "$A" patterns "$d"/rec/*.vpr >/dev/null || exit 1
	read -r wall kb <"$d/time"
	awk -v h="$1" -v n="$(echo "$gen" | awk '{print $4}')" -v w="$wall" -v kb="$kb" \
		'BEGIN { printf "%-6d %10d %10.2f %10.1f\n", h, n, w, kb / 1024 }'
done
