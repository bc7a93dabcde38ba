#!/usr/bin/env bash
# Soak: the recorder in ring mode under a steady high-rate workload for a long
# time, its resources sampled all along, then the kept segments analyzed.
#
#   tests/soak/run.sh --minutes N [--rate RT] [--keep DIR]
#
# echobench (1-byte echo over loopback) runs for N minutes (a decimal
# fraction is allowed) while vpath-record --ring writes it.  --rate RT paces
# its clients to RT round trips per second in all (each round trip is four
# socket operations, so about 4 x RT records per second); --rate 0 runs them
# as fast as they go, which on a loaded machine overruns any recorder.  The
# default, 6000 (about 24,000 records/s), is what the recorder keeps up with
# for an hour on the two shared cores (docs/reliability.md).
# Every SAMPLE_S seconds the recorder's RSS (/proc/PID/status), CPU time
# (/proc/PID/stat) and open descriptors (/proc/PID/fd) are sampled, with the
# ring's files.  Prints TAP lines, one "not ok" per failure, and exits 1 on
# any:
#   - records lost without being counted: in a kept segment, stream bytes no
#     recorded operation covers (vprstat seq_gap_bytes, one operation each
#     with 1-byte messages) exceed the recorder's counted loss (vprstat lost);
#   - RSS in the last minute more than 5% above its value at the end of the
#     first minute (first and last thirds of a run shorter than 3 minutes):
#     memory that stays; or a peak above that value plus twice the kernel
#     ring (a backlog held for time order while the recorder was starved is
#     given back, and cannot be larger than what the ring held);
#   - descriptors growing after that point;
#   - more ring files than --ring, or a file larger than its segment size;
#   - the analysis of the kept segments failing, reporting damage, or marking
#     requests incomplete though nothing was lost (but for those cut by the
#     two ends of what the ring kept: its first and last second).
# Figures (requests, records/s, RSS at start and end, CPU, lost) are printed
# as "# " lines.  --keep DIR copies the segments, samples and logs there.
#
# Environment: RATE (the default of --rate), THREADS (20), RING (4
# segments), SEGMENT (16M), SAMPLE_S (10), RECORDER_NICE (-10, as the unit).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
. tests/tools/record_helpers.sh

RATE=${RATE:-6000}
THREADS=${THREADS:-20}
RING=${RING:-4}
SEGMENT=${SEGMENT:-16M}
SAMPLE_S=${SAMPLE_S:-10}
RECORDER_NICE=${RECORDER_NICE:--10}
RINGBUF_KB=16384 # the recorder's default kernel ring (bpf/vpath.h VPATH_RINGBUF_DEFAULT)
ECHOBENCH=$OUTPUT/tests/echobench
VPRSTAT=$OUTPUT/tests/vprstat
CLK_TCK=$(getconf CLK_TCK)

usage() { echo "usage: tests/soak/run.sh --minutes N [--rate ROUND_TRIPS_PER_S] [--keep DIR]" >&2; exit 2; }
minutes="" keep=""
while [ $# -gt 0 ]; do
	case $1 in
	--minutes) [ $# -ge 2 ] || usage; minutes=$2; shift 2 ;;
	--rate) [ $# -ge 2 ] || usage; RATE=$2; shift 2 ;;
	--keep) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
	*) usage ;;
	esac
done
[[ $minutes =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage
[[ $RATE =~ ^[0-9]+$ ]] || usage
total_s=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
[ "$total_s" -ge "$SAMPLE_S" ] || { echo "soak: at least $SAMPLE_S seconds" >&2; exit 2; }
seg_bytes=$(numfmt --from=iec "$SEGMENT") || exit 2
# RSS and descriptors are compared with their values once the recorder has
# settled: after the first minute, or the first third of a short run.
settle_s=$((total_s / 3 < 60 ? total_s / 3 : 60))

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "soak" "$why"
	exit 0
fi
for f in "$VPATH_RECORD" "$VPATH_ANALYZE" "$ECHOBENCH" "$VPRSTAT"; do
	if [ ! -x "$f" ]; then
		echo "soak: $f is missing: run make OUTPUT=$OUTPUT tests-build first" >&2
		exit 1
	fi
done

failed=0
fail() { not_ok "$*"; failed=1; }
pass() { ok "$*"; }
verdict() { # NAME CONDITION...: ok or not ok
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

d=$(scratch_dir)
port=$(free_port)
if ! start_recorder "$d/rec" "$d/rec.log" --port "$port" --ring "$RING" --segment-size "$SEGMENT"; then
	fail "soak: recorder starts ($(head -c 300 "$d/rec.log"))"
	exit 1
fi
rec=$RECORDER_PID
# At the priority the installed unit gives it (systemd/vpath-record.service.in:
# Nice=-10), so that the rest of a loaded machine does not starve it.
for t in /proc/"$rec"/task/*; do renice -n "$RECORDER_NICE" -p "${t##*/}" >/dev/null; done
"$ECHOBENCH" -t "$THREADS" -r "$RATE" -d "$total_s" -P "$port" >"$d/echo.out" 2>"$d/echo.err" &
echo_pid=$!
on_exit "kill -KILL $echo_pid"

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
# utime + stime: fields 14 and 15, counted after the ")" that ends the name.
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'; }
fd_count() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
ring_files() { find "$d" -maxdepth 1 -name 'rec.[0-9]*' | wc -l; }
ring_largest() { stat -c %s "$d"/rec.[0-9]* 2>/dev/null | sort -n | tail -1; }

pace="paced at $RATE round trips/s"
[ "$RATE" -gt 0 ] || pace="unpaced (--rate 0)"
echo "# soak: $minutes min, echobench $THREADS threads $pace," \
	"vpath-record --ring $RING --segment-size $SEGMENT, sample every $SAMPLE_S s"
printf '# %6s %9s %8s %4s %5s %10s\n' t_s rss_kb cpu_s fds files largest
: >"$d/samples.tsv"
t0=$(date +%s)
ring_over=0
while kill -0 "$echo_pid" 2>/dev/null; do
	t=$(($(date +%s) - t0))
	r=$(rss_kb "$rec") c=$(cpu_ticks "$rec") n=$(fd_count "$rec")
	[ -n "$r" ] || break
	files=$(ring_files) largest=$(ring_largest)
	echo "$t $r $c $n $files ${largest:-0}" >>"$d/samples.tsv"
	printf '# %6s %9s %8.2f %4s %5s %10s\n' "$t" "$r" "$(awk -v c="$c" -v k="$CLK_TCK" 'BEGIN { print c / k }')" \
		"$n" "$files" "${largest:-0}"
	if [ "$files" -gt "$RING" ] || [ "${largest:-0}" -gt $((seg_bytes + 4096)) ]; then
		ring_over=$((ring_over + 1))
	fi
	sleep "$SAMPLE_S" & wait $!
done
wait "$echo_pid"
echo_rc=$?
elapsed=$(($(date +%s) - t0))
cpu_end=$(cpu_ticks "$rec")
stop_recorder
rec_rc=$?

verdict "soak: echobench ran to the end (status $echo_rc)" test "$echo_rc" -eq 0
verdict "soak: recorder alive throughout and stopped cleanly (status $rec_rc)" test "$rec_rc" -eq 0
line=$(cat "$d/echo.out")
summary=$(tail -n 1 "$d/rec.log")

# Resources after settling, compared with the first sample at or after it.
read -r base_t base_rss base_fds < <(awk -v s="$settle_s" '$1 >= s { print $1, $2, $4; exit }' "$d/samples.tsv")
read -r first_rss < <(awk 'NR == 1 { print $2 }' "$d/samples.tsv")
read -r last_rss < <(awk 'END { print $2 }' "$d/samples.tsv")
# A leak shows as memory that stays: the smallest RSS of the last minute (or
# last third of a short run).
read -r end_rss < <(awk -v s="$((total_s - settle_s))" '$1 >= s && (r == "" || $2 < r) { r = $2 } END { print r + 0 }' "$d/samples.tsv")
read -r max_rss max_fds < <(awk -v s="$settle_s" '$1 >= s { if ($2 > r) r = $2; if ($4 > f) f = $4 }
	END { print r + 0, f + 0 }' "$d/samples.tsv")
nsamples=$(wc -l <"$d/samples.tsv")
if [ -z "${base_rss:-}" ] || [ "$nsamples" -lt 3 ]; then
	fail "soak: enough samples after settling ($nsamples samples, none at ${settle_s}s or later)"
else
	verdict "soak: RSS at the end within 5% of its value at ${base_t}s (${base_rss} kB, ${end_rss} kB in the last minute)" \
		test "$end_rss" -le $((base_rss + base_rss / 20))
	# A backlog drained from the kernel ring while the recorder was starved
	# is held for time order, then given back: at most twice the ring.
	verdict "soak: RSS peak within a backlog of twice the kernel ring ($max_rss kB, bound $((base_rss + 2 * RINGBUF_KB)) kB)" \
		test "$max_rss" -le $((base_rss + 2 * RINGBUF_KB))
	verdict "soak: open descriptors do not grow after ${base_t}s ($base_fds, at most $max_fds later)" \
		test "$max_fds" -le "$base_fds"
fi
verdict "soak: ring within its bound at every sample ($ring_over samples over $RING files or $SEGMENT)" \
	test "$ring_over" -eq 0

segments=$(cd "$d" && ls rec.[0-9]* 2>/dev/null | sort)
nseg=$(echo "$segments" | grep -c .)
verdict "soak: at most $RING segment files kept ($nseg)" test "$nseg" -ge 1 -a "$nseg" -le "$RING"
total_bytes=$(cat "$d"/rec.[0-9]* 2>/dev/null | wc -c)
verdict "soak: ring's disk use bounded ($total_bytes bytes)" test "$total_bytes" -le $((RING * (seg_bytes + 4096)))

# Uncounted loss, segment by segment: the counted loss in a segment is
# cumulative since the start, so it bounds what that segment misses.
echo_pid_num=$(kv pid "$line")
uncounted=0 damaged=0 max_lost=0
for f in $segments; do
	st=$("$VPRSTAT" --pid "${echo_pid_num:-0}" "$d/$f" 2>>"$d/vprstat.err")
	echo "# $f: $st"
	[ "$(kv status "$st")" = ok ] || damaged=$((damaged + 1))
	gaps=$(kv seq_gap_bytes "$st") lost=$(kv lost "$st")
	[ "${gaps:-1}" -le "${lost:-0}" ] || uncounted=$((uncounted + ${gaps:-1} - ${lost:-0}))
	[ "${lost:-0}" -le "$max_lost" ] || max_lost=$lost
done
verdict "soak: every kept segment reads intact ($damaged damaged)" test "$damaged" -eq 0
verdict "soak: no record lost without being counted ($uncounted operations missing beyond the counted loss)" \
	test "$uncounted" -eq 0

an_rc=0
"$VPATH_ANALYZE" table "$d"/rec.[0-9]* >"$d/table.tsv" 2>"$d/analyze.err" || an_rc=$?
requests=$(awk -F'\t' 'NR > 1' "$d/table.tsv" | wc -l)
incomplete=$(awk -F'\t' 'NR > 1 && $9 != "yes"' "$d/table.tsv" | wc -l)
# A round trip in flight when echobench exits (a last echo its client never
# reads) is cut by the end of the recording, and one whose first operations
# were in a segment the ring has deleted is cut by the start of the oldest
# kept segment: both rightly incomplete, within a second of those ends.
read -r first_start last_end < <(awk -F'\t' 'NR > 1 { if (s == "" || $4 < s) s = $4; if ($5 > e) e = $5 }
	END { print s + 0, e + 0 }' "$d/table.tsv")
incomplete_inside=$(awk -F'\t' -v s="$first_start" -v e="$last_end" \
	'NR > 1 && $9 != "yes" && $4 > s + 1 && $5 < e - 1' "$d/table.tsv" | wc -l)
verdict "soak: vpath-analyze table on the kept segments exits 0 ($an_rc)" test "$an_rc" -eq 0
verdict "soak: analysis reports no damage ($(head -c 200 "$d/analyze.err" | tr '\n' ' '))" \
	test ! -s "$d/analyze.err"
verdict "soak: analysis found requests ($requests)" test "$requests" -gt 0
if [ "$max_lost" -eq 0 ]; then
	verdict "soak: nothing lost, so no request incomplete but in the first and last second ($incomplete_inside of $requests; $incomplete in all)" \
		test "$incomplete_inside" -eq 0
fi

rec_records=$(sed -n 's/^vpath-record: \([0-9]*\) records, \([0-9]*\) lost, .* in \([0-9.]*\) s .*/\1/p' <<<"$summary")
rec_lost=$(sed -n 's/^vpath-record: \([0-9]*\) records, \([0-9]*\) lost, .* in \([0-9.]*\) s .*/\2/p' <<<"$summary")
rec_secs=$(sed -n 's/^vpath-record: \([0-9]*\) records, \([0-9]*\) lost, .* in \([0-9.]*\) s .*/\3/p' <<<"$summary")
echo "# figures: $minutes min, recorder summary: $summary"
echo "# echobench: $(kv roundtrips "$line") round trips, $(kv rt_per_s "$line") rt/s achieved ($pace)"
echo "# requests analyzed in the $nseg kept segments: $requests ($incomplete incomplete)"
awk -v r="${rec_records:-0}" -v s="${rec_secs:-1}" -v c="$cpu_end" -v k="$CLK_TCK" -v e="$elapsed" \
	-v a="$first_rss" -v b="$last_rss" -v l="${rec_lost:-?}" -v bt="$base_t" -v br="$base_rss" 'BEGIN {
	printf "# records/s: %.0f; RSS: %d kB at start, %d kB at %ds, %d kB at end; CPU: %.1f s (%.1f%% of one core); lost: %s\n",
		r / (s > 0 ? s : 1), a, br, bt, b, c / k, c / k * 100 / (e > 0 ? e : 1), l }'

if [ -n "$keep" ]; then
	mkdir -p "$keep" && cp "$d"/rec.[0-9]* "$d"/samples.tsv "$d"/*.log "$d"/*.out "$d"/*.err "$d"/table.tsv "$keep"/ &&
		echo "# kept in $keep"
fi
exit "$failed"
