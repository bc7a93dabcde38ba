#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath-analyze local (issue 13 point 2, docs/format.md "Local files"): each
# host's recording into a local file, and every command given the local files
# in place of the recordings -- or some of each -- prints the same bytes:
# paths --json with -v's statistics, paths, table, patterns, otlp, sqlite,
# report, on a 16-host gen-synth recording with clocks 3 ms apart and on a
# vApp recording (tests/tools/vapp_recording.sh).  The local files are smaller
# than the recordings, dump reads their calls, and a cut, damaged or foreign
# file gives one line and the exit status of a damaged recording.
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
A=$VPATH_ANALYZE
GEN=$OUTPUT/tests/gen-synth
CHECK=$OUTPUT/tests/vpl-calls-check
d=$(scratch_dir)

for b in "$A" "$GEN" "$CHECK"; do
	[ -x "$b" ] || { not_ok "local: build $b first (make tests-build)"; exit 1; }
done

# to_local DIR FILE...: a local file per host in DIR (same base names); prints "recording-bytes local-bytes".
to_local() {
	local dir=$1 f in=0 out=0
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		"$A" local -o "$dir/$(basename "${f%.vpr}").vpl" "$f" 2>>"$dir/local.err" || return 1
		# Against the records unpacked (format 1): a recording is packed as a local file's
		# records are (common/reccodec.h), and a local file holds the calls as well.
		"$OUTPUT/tests/vpr-convert" --format 1 "$f" "$dir/unpacked.vpr" || return 1
		in=$((in + $(stat -c %s "$dir/unpacked.vpr")))
		rm -f "$dir/unpacked.vpr"
		out=$((out + $(stat -c %s "$dir/$(basename "${f%.vpr}").vpl")))
	done
	echo "$in $out"
}

# outputs TAG FILE...: every command's output of the files into $d/out.TAG.*
outputs() {
	local o=$d/out.$1
	shift
	"$A" paths --json -v "$@" >"$o.json" 2>"$o.stats"
	"$A" paths "$@" >"$o.txt" 2>/dev/null
	"$A" table "$@" >"$o.tsv" 2>/dev/null
	"$A" patterns "$@" >"$o.patterns" 2>/dev/null
	"$A" otlp -o "$o.otlp" "$@" 2>/dev/null
	"$A" sqlite -o "$o.db" "$@" 2>/dev/null
	"$A" report -o "$o.html" "$@" 2>/dev/null
}

# same NAME TAG1 TAG2: the two runs' outputs are byte-identical.
same() {
	local name=$1 x bad=
	for x in json stats txt tsv patterns otlp db html; do
		cmp -s "$d/out.$2.$x" "$d/out.$3.$x" || bad+=" $x"
	done
	[ -z "$bad" ] && [ -s "$d/out.$2.json" ]
	check "local: $name${bad:+ (differ:$bad)}" test $? -eq 0
}

# calls_agree NAME EXACT FILE...: how far the calls the local files hold (each
# host alone) agree with the analysis of all hosts (tests/tools/vpl-calls-check.c);
# with EXACT=yes every one must.
calls_agree() {
	local name=$1 exact=$2 line f locals=()
	shift 2
	for f in "$@"; do locals+=("$d/l/$(basename "${f%.vpr}").vpl"); done
	line=$("$CHECK" "$@" -- "${locals[@]}")
	echo "# $name: local calls against the joint analysis: $line"
	[ "$exact" = yes ] || return 0
	[ -n "$(kv calls "$line")" ] && [ "$(kv same "$line")" = "$(kv calls "$line")" ] &&
		[ "$(kv only_joint "$line")" = 0 ] && [ "$(kv calls "$line")" -gt 0 ]
	check "local: $name: every call a host found alone is the joint analysis's" test $? -eq 0
}

# compare NAME FILE...: the recordings against their local files, all and mixed.
compare() {
	local name=$1 sizes n locals=() mixed=() i=0 f l
	shift
	rm -rf "$d/l" "$d"/out.*
	sizes=$(to_local "$d/l" "$@") || { not_ok "local: $name: local for every host"; cat "$d/l/local.err"; return; }
	read -r in out <<<"$sizes"
	echo "# $name: recordings unpacked $in bytes, local files $out bytes ($((100 * out / in))%)"
	check "local: $name: the local files are smaller than the recordings unpacked" [ "$out" -lt "$in" ]
	for f in "$@"; do # the same hosts in the same order; mixed: every other one from its local file
		l=$d/l/$(basename "${f%.vpr}").vpl
		locals+=("$l")
		if ((i++ % 2)); then mixed+=("$l"); else mixed+=("$f"); fi
	done
	outputs rec "$@"
	outputs loc "${locals[@]}"
	outputs mix "${mixed[@]}"
	n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["requests"]))' "$d/out.rec.json" 2>/dev/null)
	echo "# $name: ${n:-0} requests"
	same "$name: every output from the local files is the recordings'" rec loc
	same "$name: and from local files and recordings mixed" rec mix
}

mkdir -p "$d/skew"
"$GEN" --out "$d/skew" --hosts 16 --events 60000 --concurrency 32 --skew 3000000 >/dev/null &&
	compare "16 synthetic hosts, clocks 3 ms apart" "$d"/skew/*.vpr &&
	calls_agree "16 synthetic hosts" yes "$d"/skew/*.vpr

vapp_recording "$d/rec" || { not_ok "local: a recording to read"; exit 1; }
compare "$REC_KIND recording" "${REC_FILES[@]}"
calls_agree "$REC_KIND recording" yes "${REC_FILES[@]}"

# dump: the host, then every call the local phase wrote (as -v counted them).
f=${REC_FILES[0]}
l=$d/one.vpl
"$A" local -v -o "$l" "$f" 2>"$d/v.err"
calls=$(sed -n 's/.* records, \([0-9]*\) calls .*/\1/p' "$d/v.err")
"$A" dump "$l" >"$d/dump.txt" 2>&1
grep -q "^from    $f$" "$d/dump.txt" && [ "$(grep -c '^call ' "$d/dump.txt")" = "${calls:-x}" ] &&
	grep -q "^status  ok$" "$d/dump.txt"
check "local: dump shows the host and its ${calls:-?} calls, status ok" test $? -eq 0

# Damage: one line each, the exit status of a damaged recording (docs/analyzer.md).
size=$(stat -c %s "$l")
head -c $((size - 7)) "$l" >"$d/cut.vpl"
"$A" paths "$d/cut.vpl" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] &&
	grep -q "^warning: .*cut.vpl: truncated at offset" "$d/err"
check "local: a cut local file: one warning line, exit 0" test $? -eq 0
cp "$l" "$d/flip.vpl"
python3 - "$d/flip.vpl" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off = 32 + 24 + struct.unpack_from('<I', b, 32 + 8)[0]  # the first block after HOST
b[off + 24 + 5] ^= 0xff
open(sys.argv[1], 'wb').write(b)
EOF
"$A" paths "$d/flip.vpl" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 1 ] &&
	[ "$(wc -l <"$d/err")" -eq 1 ] && grep -q "^error: .*corrupt at offset" "$d/err"
check "local: a local file damaged in the middle: one error line, exit 1" test $? -eq 0
cp "$l" "$d/ver.vpl"
printf '\x09' | dd of="$d/ver.vpl" bs=1 seek=8 conv=notrunc 2>/dev/null
"$A" table "$d/ver.vpl" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$d/err")" -eq 1 ] &&
	grep -q "^error: .*ver.vpl: unsupported local file version 9" "$d/err"
check "local: another version: one error line, exit 1" test $? -eq 0
"$A" local -o "$d/two.vpl" "${REC_FILES[@]:0:2}" 2>"$d/err"
rc=$?
[ $rc -eq 1 ] &&
	[ "$(wc -l <"$d/err")" -eq 1 ] && [ ! -e "$d/two.vpl" ]
check "local: two hosts' recordings are refused with one line, nothing written" test $? -eq 0
"$A" local -o "$d/again.vpl" "$l" 2>"$d/err"
rc=$?
[ $rc -eq 1 ] && grep -q "a local file already" "$d/err"
check "local: a local file is not taken as a recording" test $? -eq 0
"$A" paths "$l" "$f" >/dev/null 2>"$d/err"
rc=$?
[ $rc -eq 1 ] &&
	grep -q "two recordings of the same host" "$d/err"
check "local: a host given as a recording and a local file is refused" test $? -eq 0

# The PHP stack (tests/phpstack): PHP-FPM reads the tail of a FastCGI request
# after its reply, and only the sender's cuts, in nginx's recording, say so
# (docs/analyzer.md, stage 3): a decision the join takes from the records in
# the local files as from the recordings.
. tests/e2e/harness.sh
. tests/phpstack/stack.sh
if ps_recording local "$d"; then
	compare "PHP stack" "${REC_FILES[@]}"
	# PHP-FPM's tails and nginx's TLS reads are cut by the sender's records: alone, a host
	# cuts them otherwise, and only the analysis from the records (above) has them right.
	calls_agree "PHP stack" no "${REC_FILES[@]}"
fi
