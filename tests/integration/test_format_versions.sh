#!/usr/bin/env bash
# The recording's two format versions (docs/format.md): a generated
# four-host recording (written packed, version 2) and its copy rewritten
# unpacked (version 1, tests/tools/vpr-convert.c) give vpath-analyze the same
# records and the same bytes out (paths --json, patterns, table, dump but
# for its header line and its count of blocks), and converting back gives
# the same file again.
# Needs no root.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GEN=$OUTPUT/tests/gen-synth
CONV=$OUTPUT/tests/vpr-convert
A=$(realpath "$VPATH_ANALYZE")
d=$(scratch_dir)

if [ ! -x "$GEN" ] || [ ! -x "$CONV" ] || [ ! -x "$A" ]; then
	not_ok "format: build $GEN, $CONV and $A first (make tests-build)"
	exit 1
fi
mkdir -p "$d/v2" "$d/v1" "$d/back"
"$GEN" --out "$d/v2" --events 100000 --concurrency 8 --skew 3000000000 >/dev/null || {
	not_ok "gen-synth ran"
	exit 1
}
names=(lg.vpr web.vpr app.vpr db.vpr)
for f in "${names[@]}"; do
	check "format: $f rewritten as version 1" "$CONV" --format 1 "$d/v2/$f" "$d/v1/$f"
	check "format: $f rewritten back as version 2" "$CONV" --format 2 "$d/v1/$f" "$d/back/$f"
	check "format: $f the same file again" cmp -s "$d/v2/$f" "$d/back/$f"
done
v1=$(cat "$d"/v1/*.vpr | wc -c) v2=$(cat "$d"/v2/*.vpr | wc -c)
check "format: packed is under a third of unpacked ($v2 of $v1 bytes)" [ $((v2 * 3)) -lt "$v1" ]
check "format: dump says version 2" grep -q '^header  version=2 ' <<<"$("$A" dump "$d/v2/db.vpr")"
check "format: dump says version 1" grep -q '^header  version=1 ' <<<"$("$A" dump "$d/v1/db.vpr")"

# The same names in both directories: outputs that name files are the same bytes too.
for v in v1 v2; do
	(cd "$d/$v" && "$A" paths --json "${names[@]}" >../$v.json &&
		"$A" patterns "${names[@]}" >../$v.patterns &&
		"$A" table "${names[@]}" >../$v.table &&
		"$A" dump app.vpr | sed -E 's/ in [0-9]+ blocks:/:/' | grep -v '^header ' >../$v.dump)
done
check "format: paths --json holds requests" [ "$(grep -c '"id":' "$d/v2.json")" -gt 1000 ]
for out in json patterns table dump; do
	check "format: $out the same from either version" cmp -s "$d/v1.$out" "$d/v2.$out"
done
