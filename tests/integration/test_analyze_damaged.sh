#!/usr/bin/env bash
# vpath-analyze never crashes on bad input.  A four-host recording from
# tests/tools/gen-synth is damaged in a few hundred fixed ways
# (tests/tools/vpr-damage.c: damage inside records is re-sealed with a valid
# block CRC so it reaches the record parsers and the analysis; truncation,
# bad CRCs, block and file headers test the reader), and the sanitized build
# (OUTPUT/asan, made by `make test`) runs a command on each.  Every run must
# end within its time limit, with exit status 0 or 1 (docs/analyzer.md), no
# sanitizer report, and only one-line `warning:`/`error:` messages; an error
# names the file.  Then one check per bug that was found this way.  Needs no
# root.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GEN=$OUTPUT/tests/gen-synth
DAMAGE=$OUTPUT/tests/vpr-damage
A=${VPATH_ANALYZE_ASAN:-$OUTPUT/asan/vpath-analyze}
VARIANTS=${DAMAGED_VARIANTS:-360}
d=$(scratch_dir)

if [ ! -x "$A" ]; then # `make test` builds it; build it when run alone
	make --no-print-directory -s OUTPUT="$OUTPUT/asan" SANITIZE=1 "$OUTPUT/asan/vpath-analyze" >&2
fi
for b in "$GEN" "$DAMAGE" "$A"; do
	if [ ! -x "$b" ]; then
		not_ok "analyze damaged: $b is built (make tests-build)"
		exit 1
	fi
done
# A sanitizer report must not look like the analyzer's own exit status 1.
export ASAN_OPTIONS=exitcode=86:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1

mkdir -p "$d/base" "$d/w"
"$GEN" --out "$d/base" --events 2000 --concurrency 4 --skew 3000000000 >/dev/null || {
	not_ok "gen-synth ran"
	exit 1
}
hosts=(lg web app db)

# run_checked NAME DAMAGED_FILE ARGS...: runs the analyzer; sets RC, and MSG to
# what is wrong (empty when nothing is).  -v statistics lines are allowed.
run_checked() {
	local name=$1 file=$2 errors
	shift 2
	MSG=
	# A hang, not slowness: a loaded CI machine runs these sanitized builds many times slower.
	timeout 60 "$A" "$@" >"$d/out" 2>"$d/err"
	RC=$?
	grep -vE '^(host [0-9]+ |process |[0-9]+ records, )' "$d/err" >"$d/msgs"
	errors=$(grep -c '^error: ' "$d/msgs")
	if [ $RC -eq 124 ]; then
		MSG="$name: no result within 60 s"
	elif grep -qE 'Sanitizer|runtime error' "$d/err"; then
		MSG="$name: sanitizer report: $(grep -m1 -E 'ERROR|runtime error' "$d/err")"
	elif [ $RC -ne 0 ] && [ $RC -ne 1 ]; then
		MSG="$name: exit status $RC"
	elif grep -qvE '^(warning|error): ' "$d/msgs"; then
		MSG="$name: a message that is not one line: $(grep -m1 -vE '^(warning|error): ' "$d/msgs")"
	elif [ $RC -eq 1 ] && ! grep -q "^error: .*$file" "$d/msgs"; then
		MSG="$name: exit 1 without an error naming $file: $(head -c 300 "$d/msgs")"
	elif [ $RC -eq 0 ] && [ "$errors" -gt 0 ]; then
		MSG="$name: an error but exit status 0"
	elif [ "$errors" -gt 1 ]; then
		MSG="$name: $errors errors"
	fi
}

# Every command, one per variant in turn (each variant also gets dump on a third of them).
cmds=("paths" "paths --json" "table" "patterns" "dot -p 1" "show -r 3" "table --csv -n 5" "paths -v")
declare -A failed_kind=() count_kind=()
for ((seed = 1; seed <= VARIANTS; seed++)); do
	k=$((seed % 4))
	files=()
	for h in "${hosts[@]}"; do files+=("$d/base/$h.vpr"); done
	files[k]=$d/w/${hosts[k]}.vpr
	what=$("$DAMAGE" "$d/base/${hosts[k]}.vpr" "${files[k]}" "$seed") || {
		not_ok "vpr-damage seed $seed"
		continue
	}
	kind=${what%% *}
	count_kind[$kind]=$((${count_kind[$kind]:-0} + 1))
	read -ra cmd <<<"${cmds[$((seed % ${#cmds[@]}))]}"
	run_checked "${cmd[*]}" "${files[k]}" "${cmd[@]}" "${files[@]}"
	msg=$MSG
	if [ -z "$msg" ] && [ "$kind" = reseal ] && [ "$RC" -ne 0 ]; then
		msg="re-blocked only, but exit $RC"
	fi
	if [ -z "$msg" ] && ((seed % 3 == 0)); then
		run_checked dump "${files[k]}" dump "${files[k]}"
		msg=$MSG
	fi
	if [ -n "$msg" ]; then
		not_ok "damaged: $msg ($what)"
		failed_kind[$kind]=1
	fi
done
for kind in "${!count_kind[@]}"; do
	[ -n "${failed_kind[$kind]:-}" ] ||
		ok "damaged ($kind): ${count_kind[$kind]} variants end cleanly with one-line messages"
done

# Re-blocking alone changes nothing: the same requests as the original.
"$DAMAGE" "$d/base/app.vpr" "$d/w/app.vpr" 1000 reseal >/dev/null
check "re-blocked recording gives the same table" cmp -s \
	<("$A" table "$d/base/"{lg,web,app,db}.vpr 2>&1) \
	<("$A" table "$d/base/"{lg,web}.vpr "$d/w/app.vpr" "$d/base/db.vpr" 2>&1)

# expect NAME RC [PATTERN] -- ARGS...: the analyzer on ARGS (run_checked, the
# damaged file being $DAMAGED) ends cleanly with status RC and, when given, a
# message matching PATTERN.
expect() {
	local name=$1 want=$2 pattern=
	shift 2
	[ "$1" = -- ] || { pattern=$1; shift; }
	shift
	run_checked "$1" "$DAMAGED" "$@"
	if [ -z "$MSG" ] && [ "$RC" -eq "$want" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$d/msgs"; }; then
		ok "$name"
	else
		not_ok "$name (exit $RC, ${MSG:-$(head -c 300 "$d/err")})"
	fi
}
fs=("$d/base/lg.vpr" "$d/base/web.vpr" "$d/w/app.vpr" "$d/base/db.vpr")
DAMAGED=$d/w/app.vpr

# Regression: a block header with length 0 made the reader loop forever.
"$DAMAGE" "$d/base/app.vpr" "$DAMAGED" 7 emptyblock >/dev/null
expect "an empty block ends the analysis as corrupt" 1 'impossible block length' -- paths "${fs[@]}"
expect "an empty block ends dump as corrupt" 1 'impossible block length' -- dump "$DAMAGED"

# Regression: opening a FIFO blocked until a writer came.
mkfifo "$d/fifo.vpr"
DAMAGED=$d/fifo.vpr
expect "a FIFO is refused at once" 1 "^error: $d/fifo.vpr: not a regular file$" -- paths "$d/fifo.vpr"
: >"$d/empty.vpr"
DAMAGED=$d/empty.vpr
expect "an empty file says so" 1 "^error: $d/empty.vpr: empty file" -- table "$d/empty.vpr"
DAMAGED=$d
expect "a directory says so" 1 "^error: $d: is a directory$" -- table "$d"
DAMAGED=/dev/null
expect "/dev/null is refused by dump" 1 "not a regular file" -- dump /dev/null
DAMAGED=$d/w/app.vpr

# Regression: times at the end of the 64-bit clock overflowed the clock
# offsets and the waterfall (UBSan: signed integer overflow).
"$DAMAGE" "$d/base/app.vpr" "$DAMAGED" 3 ts-far >/dev/null
expect "a time at the end of the clock is skipped, with a warning" 0 \
	'^warning: app: 1 records with impossible values' -- paths "${fs[@]}"
"$DAMAGE" "$d/base/app.vpr" "$DAMAGED" 2 overwrite >/dev/null
expect "paths of a recording with bytes overwritten" 0 -- paths "${fs[@]}"
# ... and a header's wall clock at 2^63 overflowed the offsets between hosts.
"$DAMAGE" "$d/base/app.vpr" "$DAMAGED" 3 wall-far >/dev/null
expect "a wall clock at 2^63 (host 2)" 0 -- table "${fs[@]}"
expect "a wall clock at 2^63 (host 0)" 0 -- table "$DAMAGED" "$d/base/"{lg,web,db}.vpr

# Regression: a 16-character thread name (no NUL) ran into the next field.
"$DAMAGE" "$d/base/app.vpr" "$DAMAGED" 3 comm-full >/dev/null
"$A" paths --json "${fs[@]}" >"$d/paths.json" 2>"$d/err"
check "names of 16 characters are cut to 15" python3 - "$d/paths.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
names = {p["name"] for p in doc["processes"] if p["host"] == 2}
assert names == {"x" * 15}, names
PY

# Regression: records in reverse time order were sorted in quadratic time
# (under the sanitizers: 6 s for 40000 records before the fix, so about 25 s
# for these 80000; 0.2 s now).
mkdir -p "$d/big"
"$GEN" --out "$d/big" --events 240000 --concurrency 8 >/dev/null
DAMAGED=$d/w/rev.vpr
"$DAMAGE" "$d/big/app.vpr" "$DAMAGED" 1 reverse >/dev/null
expect "a recording in reverse time order" 0 -- table "$DAMAGED"
# CPU seconds (user + system), not wall time: the machine may be shared.
cpu=$( { TIMEFORMAT='%U %S'; time "$A" table "$DAMAGED" >/dev/null 2>&1; } 2>&1 | awk '{ printf "%d", ($1 + $2) * 1000 }')
check "a recording in reverse time order is read in linear time (${cpu} ms of CPU)" [ "${cpu:-99999}" -lt 5000 ]

# Regression: a huge --window wrapped negative and split every request.
"$A" paths --window 9999999999s "$d/base/lg.vpr" >/dev/null 2>"$d/err"
rc=$?
check "an absurd --window is a command-line error" \
	[ $rc -eq 2 -a "$(cat "$d/err")" = "error: invalid value '9999999999s' for option --window" ]
