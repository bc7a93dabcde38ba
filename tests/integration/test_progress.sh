#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# Progress of a long analysis: on a terminal (script(1) gives one) stderr
# shows "N records, P% of SIZE, Ts left" redrawn on one line, and erases it
# at the end; in a pipe, or with CI set, nothing.  The long analysis is an
# OTLP export of a 600 000-record synthetic recording (several seconds).
cd "$(dirname "$0")/../.."
. tests/lib.sh
A=$VPATH_ANALYZE
GEN=$OUTPUT/tests/gen-synth
d=$(scratch_dir)

if [ ! -x "$A" ] || [ ! -x "$GEN" ]; then
	not_ok "progress: build $A and $GEN first (make tests-build)"
	exit 1
fi
if ! command -v script >/dev/null; then
	skip "progress on a terminal" "no script(1) (util-linux) to make a terminal"
	exit 0
fi
"$GEN" --out "$d" --events 600000 --concurrency 8 >/dev/null || { not_ok "gen-synth ran"; exit 1; }
files=("$d"/lg.vpr "$d"/web.vpr "$d"/app.vpr "$d"/db.vpr)
size=$(cat "${files[@]}" | wc -c)

# script(1) runs the command on a new terminal; its output is what the terminal got.
env -u CI script -qfec "$A otlp -o $d/out.json ${files[*]}" /dev/null >"$d/tty" 2>&1
rc=$?
tr '\r' '\n' <"$d/tty" | sed 's/\x1b\[K//g' | grep -v '^$' >"$d/lines"
sed 's/^/# /' "$d/lines" | head -3
[ $rc -eq 0 ] && [ -s "$d/out.json" ]
check "on a terminal the analysis still succeeds" test $? -eq 0
check "on a terminal, progress lines: records read, share of the recordings' size, time left" \
	grep -qE "^[0-9.]+[kM]? records, [0-9]+% of $(awk -v s="$size" 'BEGIN { if (s < 1e7) printf "%.1fkB", s / 1e3; else printf "%.1fMB", s / 1e6 }'), [0-9]+s left$" "$d/lines"
check "progress goes forward" awk -F'[ %]+' '/records, /{ if ($3 + 0 < last) bad = 1; last = $3 + 0; n++ } END { exit bad || n < 2 }' "$d/lines"
check "the last progress line is erased at the end" bash -c "tail -c 4 '$d/tty' | od -An -c | tr -d ' \n' | grep -q '\\\\r033\\[K$'"

"$A" otlp -o "$d/out2.json" "${files[@]}" 2>"$d/pipe.err"
check "stderr in a pipe or file: no progress" [ ! -s "$d/pipe.err" ]
CI=true script -qfec "$A otlp -o $d/out3.json ${files[*]}" /dev/null >"$d/tty-ci" 2>&1
check "on a terminal with CI set: no progress" [ ! -s "$d/tty-ci" ]
