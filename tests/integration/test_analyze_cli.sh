#!/usr/bin/env bash
# vpath-analyze on the command line: every command on a generated four-host
# recording (tests/tools/gen-synth.c), checked against what the generator
# wrote, and the one-line errors for bad input.  Needs no root.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
GEN=$OUTPUT/tests/gen-synth
A=$VPATH_ANALYZE
d=$(scratch_dir)

if [ ! -x "$GEN" ] || [ ! -x "$A" ]; then
	not_ok "analyze cli: build $GEN and $A first (make tests-build)"
	exit 1
fi
gen=$("$GEN" --out "$d" --events 30000 --concurrency 8 --skew 3000000000) || {
	not_ok "gen-synth ran"
	exit 1
}
requests=$(echo "$gen" | awk '{print $2}')
calls=$(echo "$gen" | awk '{print $6}')
files=("$d"/lg.vpr "$d"/web.vpr "$d"/app.vpr "$d"/db.vpr)

# dump: one line per record plus header/summary/status, exit 0
out=$("$A" dump "$d/web.vpr")
records=$(echo "$out" | grep -cE '^(sock_op|conn|task|addr) ')
check "dump prints every record" [ "$records" -gt 1000 ]
vpr=$(sed -nE 's/^#define VPR_VERSION ([0-9]+).*/\1/p' include/vpath/record.h)
check "dump prints the header" grep -q "^header  version=$vpr host=\"web\"" <<<"$out"
check "dump prints addresses as ip:port" grep -qE '^conn .* 10\.1\.0\.1:80 -> 10\.1\.0\.9:40000 ' <<<"$out"
check "dump prints stream ranges" grep -qE '^sock_op .* range=\[[0-9]+,[0-9]+\)' <<<"$out"
check "dump says the file is intact" grep -q '^status  ok' <<<"$out"

# dump of a torn tail: warning, exit 0; of a corrupt block: error with offset, exit 1
cp "$d/db.vpr" "$d/torn.vpr"
truncate -s -10 "$d/torn.vpr"
"$A" dump "$d/torn.vpr" >/dev/null 2>"$d/err"
check "dump of a torn tail exits 0" [ $? -eq 0 ]
check "dump of a torn tail warns with the offset" grep -q 'warning: .*torn.vpr: truncated at offset' "$d/err"
# Several blocks (packed, as the recorder writes them): damage in the first is not a torn tail.
mkdir -p "$d/big" && "$GEN" --out "$d/big" --events 400000 >/dev/null
cp "$d/big/app.vpr" "$d/bad.vpr"
printf 'XXXXXXXX' | dd of="$d/bad.vpr" bs=1 seek=300 conv=notrunc status=none
"$A" dump "$d/bad.vpr" >/dev/null 2>"$d/err"
check "dump of a corrupt file exits 1" [ $? -eq 1 ]
check "dump of a corrupt file says where" grep -q 'error: .*bad.vpr: corrupt at offset 256' "$d/err"

# paths: one tree per request, every request with its full depth
out=$("$A" paths "${files[@]}")
check "paths finds every request ($requests)" [ "$(grep -c '^request ' <<<"$out")" -eq "$requests" ]
check "paths shows the database calls" [ "$(grep -cE '[|`]- db db\(400\)' <<<"$out")" -eq $((calls - 2 * requests)) ]
check "paths marks nothing incomplete" [ "$(grep -c INCOMPLETE <<<"$out")" -eq 0 ]

# table: a header and one row per request, each through 4 hosts
out=$("$A" table "${files[@]}")
check "table has one row per request" [ "$(tail -n +2 <<<"$out" | wc -l)" -eq "$requests" ]
check "table rows visit 4 hosts" [ "$(tail -n +2 <<<"$out" | awk -F'\t' '$7 != 4' | wc -l)" -eq 0 ]
check "table --csv is comma-separated" grep -q '^id,entry,client,' <<<"$("$A" table --csv "${files[@]}")"

# JSON: parses, the schema's fields, nesting web -> app -> db, clocks aligned despite 3 s skew
"$A" paths --json "${files[@]}" >"$d/paths.json"
check "paths --json matches the schema and the generator" python3 - "$d/paths.json" "$requests" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
reqs = doc["requests"]
assert doc["version"] == 2 and len(reqs) == int(sys.argv[2]), len(reqs)
names = {h["id"]: h["name"] for h in doc["hosts"]}
offsets = {h["name"]: h["offset_ns"] for h in doc["hosts"]}
# host k's clock runs k*3 s ahead of lg's: offsets undo it (within microseconds)
for k, n in enumerate(["lg", "web", "app", "db"]):
    assert abs(offsets[n] - (offsets["lg"] - k * 3_000_000_000)) < 20_000, offsets
for r in reqs:
    root = r["root"]
    assert r["complete"] and names[root["client"]["host"]] == "lg" and root["server"]["addr"] == "10.1.0.1:80"
    assert names[root["server"]["host"]] == "web"
    (app,) = root["calls"]
    assert names[app["server"]["host"]] == "app" and app["server"]["comm"] == "app"
    assert 1 <= len(app["calls"]) <= 3
    for db in app["calls"]:
        assert names[db["server"]["host"]] == "db" and db["calls"] == []
        assert app["start_ns"] <= db["start_ns"] <= db["end_ns"] <= app["end_ns"]
    assert root["start_ns"] <= app["start_ns"] and app["end_ns"] <= root["end_ns"]
models = {(names[p["host"]], p["pid"]): p["model"] for p in doc["processes"]}
assert models[("web", 300)] == "thread-per-request", models
assert models[("app", 500)] == "dispatcher-worker", models
PY

# patterns: three shapes (1, 2 or 3 database calls) that add up to every request
out=$("$A" patterns "${files[@]}")
check "patterns finds the three shapes" [ "$(grep -c '^pattern ' <<<"$out")" -eq 3 ]
check "patterns count every request" [ "$(awk '/^pattern /{s += $3} END {print s}' <<<"$out")" -eq "$requests" ]

# filters and the single-request commands
check "--slowest 3 shows three" [ "$("$A" paths -n 3 "${files[@]}" | grep -c '^request ')" -eq 3 ]
check "show --request 5 shows request 5" grep -q '^request 5 ' <<<"$("$A" show -r 5 "${files[@]}")"
check "--entry with another address shows none" [ "$("$A" table -e 10.9.9.9:80 "${files[@]}" | wc -l)" -eq 1 ]
check "--entry with the front end shows all" [ "$("$A" table -e 10.1.0.1:80 "${files[@]}" | wc -l)" -eq $((requests + 1)) ]
check "--from/--to narrow the time window" [ "$("$A" table --from 1ms --to 2ms "${files[@]}" | wc -l)" -lt $((requests / 2)) ]
check "dot of a request is a graph" grep -q '^digraph request7 {' <<<"$("$A" dot -r 7 "${files[@]}")"
check "dot of a pattern is a graph" grep -q '^digraph pattern1 {' <<<"$("$A" dot -p 1 "${files[@]}")"

# bad input: one line, non-zero exit
expect_error() { # name, expected message, command...
	local name=$1 want=$2 rc
	shift 2
	"$@" >/dev/null 2>"$d/err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$d/err")" -eq 1 ] && grep -q -- "$want" "$d/err"; then
		ok "$name"
	else
		not_ok "$name (exit $rc: $(cat "$d/err"))"
	fi
}
echo "not a recording" >"$d/junk.vpr"
cp "$d/web.vpr" "$d/web-copy.vpr"
expect_error "missing file" "missing.vpr: cannot open" "$A" paths "$d/missing.vpr"
expect_error "not a recording" "junk.vpr: not a vpath recording" "$A" paths "$d/junk.vpr"
expect_error "two recordings of one host" "two recordings of the same host" "$A" table "$d/web.vpr" "$d/web-copy.vpr"
expect_error "unknown command" "unknown command 'pathz'" "$A" pathz "$d/web.vpr"
expect_error "show without a request" "show needs --request" "$A" show "$d/web.vpr"
expect_error "no such request" "no request 999999" "$A" show -r 999999 "${files[@]}"
expect_error "bad duration" "invalid value 'soon'" "$A" paths --from soon "$d/web.vpr"
expect_error "another command's option" "paths: unrecognized option '--csv'" "$A" paths --csv "$d/web.vpr"
expect_error "a missing value" "option requires an argument" "$A" table "$d/web.vpr" -n
# each command's --help: its own options and examples, no other command's
out=$("$A" table --help)
check "table --help lists --csv and the filters" grep -qE '^ +--csv .*' <<<"$out"
check "table --help lists --entry" grep -qE '^ +-e, --entry=HOST:PORT' <<<"$out"
check "table --help lists no --json" test "$(grep -c -- '--json' <<<"$out")" -eq 0
check "table --help has its example" grep -q '^  vpath-analyze table --entry' <<<"$out"
check "--help has examples" grep -q '^Examples:' <<<"$("$A" --help)"
