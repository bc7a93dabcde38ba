#!/usr/bin/env bash
# Analyzer throughput and memory as the recording grows: gen-synth writes a
# four-host recording (64 client threads, about 40 requests in flight, about
# 500K records per second of recording, a clock tick per second) of 1M and
# of 10M records;
# `vpath-analyze patterns --threads 1` reads each.  Prints records per second of CPU time
# (one core: the analyzer is single-threaded) and of wall time, and peak RSS.
# Targets: >= 5M records/s; RSS at 10M <= 1.5x RSS at 1M (memory follows
# concurrency, not recording length).
# Then the same largest recording under this build and under the build of
# ANALYZER_BASE (88f5566, main on 2026-11-24, issue 27: this build should
# take half its CPU time), --threads 1, BASE_ROUNDS (3) interleaved rounds:
# the median CPU time and peak RSS of each and their ratio.  The base reads
# format 1 only, so both read the recording's `vpr-convert --format 1` copy
# (this build on the packed original is timed beside them).  The base is
# built once from git into $OUTPUT/bench-base-COMMIT (ANALYZER_BASE_BIN: a
# vpath-analyze to use instead; ANALYZER_BASE= skips the comparison).
set -u
cd "$(dirname "$0")/../.." || exit 1
OUTPUT=${OUTPUT:-.output}
GEN=$OUTPUT/tests/gen-synth
CONVERT=$OUTPUT/tests/vpr-convert
A=$OUTPUT/vpath-analyze
SIZES=${ANALYZER_BENCH_SIZES:-"1000000 10000000"}
BASE=${ANALYZER_BASE-88f5566}
BASE_BIN=${ANALYZER_BASE_BIN:-}
BASE_ROUNDS=${BASE_ROUNDS:-3}
for b in "$GEN" "$CONVERT" "$A"; do
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
	/usr/bin/time -f '%U %S %e %M' -o "$d/time" "$A" patterns --threads 1 "$d"/*.vpr >"$d/out" || exit 1
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

# base_build: the base commit's vpath-analyze, built once (prints its path, or nothing).
base_build() {
	local dir=$OUTPUT/bench-base-$BASE
	if [ ! -x "$dir/.output/vpath-analyze" ]; then
		rm -rf "$dir" && mkdir -p "$dir" || return 0
		git archive "$BASE" 2>/dev/null | tar -x -C "$dir" 2>/dev/null &&
			make -C "$dir" -j2 .output/vpath-analyze >"$dir.log" 2>&1 || return 0
	fi
	echo "$dir/.output/vpath-analyze"
}
[ -n "$BASE" ] || exit 0
[ -n "$BASE_BIN" ] || BASE_BIN=$(base_build)
if [ ! -x "$BASE_BIN" ]; then
	echo "comparison with $BASE skipped: could not build it (git archive, make; see $OUTPUT/bench-base-$BASE.log)"
	exit 0
fi
# Format 1 copy of the last recording, which both builds can read.
mkdir -p "$d/v1" || exit 1
for f in "$d"/*.vpr; do
	"$CONVERT" --format 1 "$f" "$d/v1/$(basename "$f")" || exit 1
done
# run_of BIN DIR: "CPU-seconds peak-RSS-KB" of one --threads 1 run over DIR's recording;
# its output is kept in $d/out.BIN-NAME to check that both builds agree.
run_of() {
	/usr/bin/time -f '%U %S %M' -o "$d/time" "$1" patterns --threads 1 "$2"/*.vpr >"$d/out.$3" || return 1
	awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$d/time"
}
base_cpu= new_cpu= pack_cpu= base_kb= new_kb=
for r in $(seq 1 "$BASE_ROUNDS"); do
	# Alternate which goes first, so that a busy spell hits both alike.
	if [ $((r % 2)) = 1 ]; then
		read -r b bk <<<"$(run_of "$BASE_BIN" "$d/v1" base)" && read -r n nk <<<"$(run_of "$A" "$d/v1" new)" || exit 1
	else
		read -r n nk <<<"$(run_of "$A" "$d/v1" new)" && read -r b bk <<<"$(run_of "$BASE_BIN" "$d/v1" base)" || exit 1
	fi
	read -r p _ <<<"$(run_of "$A" "$d" packed)" || exit 1
	base_cpu+="$b " new_cpu+="$n " pack_cpu+="$p " base_kb+="$bk " new_kb+="$nk "
done
cmp -s "$d/out.base" "$d/out.new" || echo "WARNING: $BASE's build and this build print different patterns"
cmp -s "$d/out.new" "$d/out.packed" || echo "WARNING: this build prints different patterns from the two formats"
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mb=$(echo "$base_cpu" | median) mn=$(echo "$new_cpu" | median) mp=$(echo "$pack_cpu" | median)
rb=$(echo "$base_kb" | median) rn=$(echo "$new_kb" | median)
echo "--threads 1, $events records (format 1 copy), $BASE_ROUNDS interleaved rounds"
printf '%-22s %-26s %8s %10s\n' build "CPU seconds" median "peak RSS"
printf '%-22s %-26s %8s %7.1f MB\n' "$BASE" "$base_cpu" "$mb" "$(awk -v k="$rb" 'BEGIN { print k / 1024 }')"
printf '%-22s %-26s %8s %7.1f MB\n' "this build" "$new_cpu" "$mn" "$(awk -v k="$rn" 'BEGIN { print k / 1024 }')"
printf '%-22s %-26s %8s\n' "this build, format 2" "$pack_cpu" "$mp"
awk -v b="$mb" -v n="$mn" -v base="$BASE" -v rb="$rb" -v rn="$rn" 'BEGIN {
	printf "median CPU time %s'"'"'s build / this build: %.2fx (target >= 2); peak RSS %.2fx\n", base,
		(n > 0 ? b / n : 0), (rn > 0 ? rb / rn : 0) }'
