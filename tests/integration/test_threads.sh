#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath-analyze --threads N gives what --threads 1 gives, byte for byte
# (docs/analyzer.md, "Threads"): on a sixteen-host synthetic recording
# (gen-synth --hosts 16), with and without clock skew, and on a vApp
# recording (tests/tools/vapp_recording.sh) -- paths --json, table and the
# -v statistics; the first of two unreadable files is the one told at any
# thread count; and a bad --threads is refused with one line.
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
A=$VPATH_ANALYZE
GEN=$OUTPUT/tests/gen-synth
d=$(scratch_dir)

for b in "$A" "$GEN"; do
	[ -x "$b" ] || { not_ok "threads: build $b first (make tests-build)"; exit 1; }
done

# same_for_threads NAME FILE...: every output of --threads 2, 4 and the default equals --threads 1's.
same_for_threads() {
	local name=$1 t out bad=
	shift
	for t in 1 2 4 default; do
		local opt=(--threads "$t")
		[ "$t" = default ] && opt=()
		out=$d/$name.$t
		"$A" paths --json -v "${opt[@]}" "$@" >"$out.json" 2>"$out.err" || bad+=" exit($t)"
		"$A" table "${opt[@]}" "$@" >"$out.tsv" 2>/dev/null || bad+=" table-exit($t)"
		[ "$t" = 1 ] && continue
		cmp -s "$out.json" "$d/$name.1.json" || bad+=" json($t)"
		cmp -s "$out.tsv" "$d/$name.1.tsv" || bad+=" table($t)"
		cmp -s "$out.err" "$d/$name.1.err" || bad+=" stats($t)"
	done
	local n
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["requests"]))' "$d/$name.1.json" 2>/dev/null)
	[ "${n:-0}" -gt 0 ] || bad+=" no-requests"
	echo "# $name: ${n:-0} requests"
	check "threads: $name: --threads 2, 4 and the default give what --threads 1 gives${bad:+ (differ:$bad)}" [ -z "$bad" ]
}

mkdir -p "$d/synth" "$d/skew"
"$GEN" --out "$d/synth" --hosts 16 --events 120000 --concurrency 48 >/dev/null &&
	same_for_threads "16 synthetic hosts" "$d"/synth/*.vpr
# Skewed clocks: the offsets the join solves move the merge order while it runs.
"$GEN" --out "$d/skew" --hosts 16 --events 120000 --concurrency 48 --skew 3000000 >/dev/null &&
	same_for_threads "16 synthetic hosts, clocks 3 ms apart" "$d"/skew/*.vpr

vapp_recording "$d/rec" || { not_ok "threads: a recording to read"; exit 1; }
echo "# $REC_KIND recording: ${#REC_FILES[@]} hosts"
same_for_threads "$REC_KIND recording" "${REC_FILES[@]}"

# Files are opened on the threads (input.c prescan_all): of two unreadable
# ones, the first given is the one told, whatever the thread count.
printf 'not a recording' >"$d/bad1.vpr"
printf 'nor this one' >"$d/bad2.vpr"
msgs=
for t in 1 4; do
	"$A" paths --threads "$t" "$d"/synth/*.vpr "$d/bad1.vpr" "$d/bad2.vpr" >/dev/null 2>"$d/bad.$t"
	rc=$?
	msgs+="$rc $(cat "$d/bad.$t")|"
done
echo "# unreadable files: ${msgs}"
check "threads: the first unreadable file given is the one told, at 1 and 4 threads" \
	sh -c '[ "$(wc -l <"$1/bad.1")" -eq 1 ] && grep -q "bad1.vpr" "$1/bad.1" &&
		! grep -q "bad2.vpr" "$1/bad.1" && cmp -s "$1/bad.1" "$1/bad.4"' _ "$d"

for bad in 0 x 2000; do
	"$A" paths --threads "$bad" "$d"/synth/*.vpr >/dev/null 2>"$d/err"
	rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "^error: .*--threads" "$d/err"
	check "threads: --threads $bad is refused with one line, exit 2" test $? -eq 0
done
