#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# vpath-analyze otlp (docs/otlp.md) on a vApp recording: the document
# against the official OTLP protobuf schema (opentelemetry-proto's .proto
# files from npm, loaded by protobufjs: tests/tools/otlp_check.js), spans
# and attributes against paths --json, Unix times against the recordings'
# clocks, stable ids; then --endpoint against a receiver this test starts
# on 127.0.0.1: batches arrive whole, 503 is retried, 400 and an unreachable
# receiver are one error line and exit 1.
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/tools/vapp_recording.sh
A=$VPATH_ANALYZE
d=$(scratch_dir)

output_test_begin otlp "$d" || exit 1
for f in "${REC_FILES[@]}"; do "$A" dump "$f" | head -1; done >"$d/headers"

"$A" otlp -o "$d/otlp.json" "${REC_FILES[@]}" 2>"$d/err"
[ $? -eq 0 ] && [ -s "$d/otlp.json" ]
check "otlp -o writes the document (exit 0)" test $? -eq 0
"$A" otlp "${REC_FILES[@]}" 2>/dev/null >"$d/otlp2.json"
check "the same recording gives the same document (trace and span ids are derived, not random)" \
	cmp -s "$d/otlp.json" "$d/otlp2.json"

# Against paths --json: one trace per request, a span per recorded end,
# parents along the call tree, the link's evidence and the outcome, and
# Unix times = common timeline + the median over hosts of
# (start_real - start_mono - offset).
check "spans match paths --json (counts, parents, attributes, Unix times)" \
	python3 - "$d/paths.json" "$d/otlp.json" "$d/headers" <<'PY'
import json, re, statistics, sys
paths = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
hosts = {h["name"]: h for h in paths["hosts"]}
walls = []
for line in open(sys.argv[3]):
    name = re.search(r'host="([^"]*)"', line).group(1)
    mono = int(re.search(r"start_mono=(\d+)", line).group(1))
    sec, frac = re.search(r"start_real=(\d+)\.(\d+)", line).groups()
    real = int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
    h = [x for x in paths["hosts"] if x["name"] == name or x["name"].startswith(name + "#")]
    if h and h[0]["records"]:
        walls.append(real - mono - int(h[0]["offset_ns"]))
walls.sort()
epoch = walls[len(walls) // 2]

spans = {}
for rs in doc["resourceSpans"]:
    res = {a["key"]: a["value"] for a in rs["resource"]["attributes"]}
    for ss in rs["scopeSpans"]:
        for s in ss["spans"]:
            s["attrs"] = {a["key"]: list(a["value"].values())[0] for a in s["attributes"]}
            s["res"] = res
            spans.setdefault(s["traceId"], []).append(s)
bad = []
if len(spans) != len(paths["requests"]):
    bad.append("traces %d, requests %d" % (len(spans), len(paths["requests"])))
by_req = {}
for tid, ss in spans.items():
    ids = {s["attrs"]["vpath.request.id"] for s in ss}
    if len(ids) != 1:
        bad.append("trace %s holds requests %s" % (tid, ids))
    by_req[int(ids.pop())] = ss

def walk(c, parent_span, ss, req):
    kids = [s for s in ss if s.get("parentSpanId", "") == parent_span]
    mine = [s for s in kids if s["kind"] == 3 and int(s["attrs"]["vpath.conn_index"]) == c["conn_index"]
            and s["attrs"]["network.peer.port"] == c["server"]["addr"].rsplit(":", 1)[1]
            and s["attrs"]["network.local.port"] == c["client"]["addr"].rsplit(":", 1)[1]]
    want_client = c["client"]["host"] is not None
    cl = [s for s in mine if s["kind"] == 3]
    if want_client:
        if len(cl) != 1:
            bad.append("req %d: %d client spans for %s" % (req["id"], len(cl), c["server"]["addr"]))
            return
        s = cl[0]
        if int(s["startTimeUnixNano"]) != c["start_ns"] + epoch or int(s["endTimeUnixNano"]) != c["end_ns"] + epoch:
            bad.append("req %d: client span times %s..%s, want %d..%d" % (req["id"], s["startTimeUnixNano"],
                       s["endTimeUnixNano"], c["start_ns"] + epoch, c["end_ns"] + epoch))
        if s["attrs"]["thread.id"] != str(c["client"]["tid"]) or \
                s["res"]["process.pid"]["intValue"] != str(c["client"]["pid"]):
            bad.append("req %d: client thread or process" % req["id"])
        if s["attrs"]["vpath.link.basis"] != c["link"]["basis"] or s["attrs"]["vpath.link.exact"] != c["link"]["exact"]:
            bad.append("req %d: link %s/%s, want %s" % (req["id"], s["attrs"]["vpath.link.basis"],
                       s["attrs"]["vpath.link.exact"], c["link"]))
        if s["attrs"]["vpath.outcome"] != c["outcome"]:
            bad.append("req %d: outcome" % req["id"])
        parent_span = s["spanId"]
    if c["server"]["host"] is not None:
        sv = [s for s in ss if s.get("parentSpanId", "") == parent_span and s["kind"] == 2
              and int(s["attrs"]["vpath.conn_index"]) == c["conn_index"]
              and s["attrs"]["network.local.port"] == c["server"]["addr"].rsplit(":", 1)[1]
              and s["attrs"]["network.peer.port"] == c["client"]["addr"].rsplit(":", 1)[1]]
        if len(sv) != 1:
            bad.append("req %d: %d server spans for %s" % (req["id"], len(sv), c["server"]["addr"]))
            return
        s = sv[0]
        if s["res"]["process.pid"]["intValue"] != str(c["server"]["pid"]) or \
                s["res"]["host.name"]["stringValue"] != paths["hosts"][c["server"]["host"]]["name"]:
            bad.append("req %d: server resource" % req["id"])
        # The server span starts when the server got the request, never before the client sent it.
        start = max(c["server_start_ns"], c["start_ns"] if c["client"]["host"] is not None else -2**63)
        if int(s["startTimeUnixNano"]) != start + epoch:
            bad.append("req %d: server span start" % req["id"])
        parent_span = s["spanId"]
    for k in c["calls"]:
        walk(k, parent_span, ss, req)

nspans = 0
for req in paths["requests"]:
    ss = by_req.get(req["id"])
    if ss is None:
        bad.append("request %d has no trace" % req["id"])
        continue
    nspans += len(ss)
    walk(req["root"], "", ss, req)

def ends(c):
    return (c["client"]["host"] is not None) + (c["server"]["host"] is not None) + sum(ends(k) for k in c["calls"])
want = sum(ends(r["root"]) for r in paths["requests"])
if nspans != want:
    bad.append("spans %d, recorded call ends %d" % (nspans, want))
for b in bad[:10]:
    print("# " + b)
print("# %d traces, %d spans, epoch %d" % (len(spans), nspans, epoch))
sys.exit(1 if bad else 0)
PY

if schema=$(otlp_schema_dir); then
	check "otlp document is valid under the official opentelemetry-proto schema (protobufjs)" \
		env NODE_PATH="$schema/node_modules" node tests/tools/otlp_check.js "$schema/protos" "$d/otlp.json"
	# The check can fail: a kind by name, an id in base64 and an unknown field are each refused.
	python3 - "$d/otlp.json" "$d/broken.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
s["kind"] = "SPAN_KIND_CLIENT"
s["spanId"] = "AAECAwQFBgc="
s["durationNano"] = "1"
json.dump(doc, open(sys.argv[2], "w"))
PY
	env NODE_PATH="$schema/node_modules" node tests/tools/otlp_check.js "$schema/protos" "$d/broken.json" \
		>/dev/null 2>"$d/broken.err"
	[ $? -ne 0 ] && grep -q 'SpanKind' "$d/broken.err" &&
		grep -q 'spanId wants' "$d/broken.err" && grep -q 'unknown field "durationNano"' "$d/broken.err"
	check "the schema check refuses a broken document" test $? -eq 0
else
	skip "otlp document is valid under the official opentelemetry-proto schema" \
		"needs node and npm to fetch @opentelemetry/otlp-grpc-exporter-base (its .proto files) and protobufjs"
fi

# --endpoint: a receiver on 127.0.0.1 that stores what it gets.
receiver_pid=
start_receiver() { # DIR ARGS...
	local dir=$1
	shift
	mkdir -p "$dir"
	python3 tests/tools/otlp_receiver.py --dir "$dir" "$@" &
	receiver_pid=$!
	on_exit "kill $receiver_pid"
	for _ in $(seq 50); do
		[ -s "$dir/port" ] && return 0
		sleep 0.1
	done
	return 1
}
stop_receiver() {
	kill "$receiver_pid" 2>/dev/null
	wait "$receiver_pid" 2>/dev/null
}

start_receiver "$d/ok" || { not_ok "otlp: the test receiver starts"; exit 1; }
"$A" otlp --endpoint "http://127.0.0.1:$(cat "$d/ok/port")" "${REC_FILES[@]}" >"$d/ok/out" 2>"$d/ok/err"
rc=$?
stop_receiver
[ $rc -eq 0 ] && [ ! -s "$d/ok/out" ]
check "otlp --endpoint posts to a receiver and exits 0" test $? -eq 0
check "every post is POST /v1/traces, application/json, answered 200" \
	awk '$1 != "/v1/traces" || $2 != "application/json" || $3 != 200 { bad = 1 } END { exit bad || NR == 0 }' \
	"$d/ok/requests"
check "the batches hold exactly the spans of otlp -o, each once" python3 - "$d/otlp.json" "$d"/ok/body-*.json <<'PY'
import json, sys
def spans(doc):
    return [(s["traceId"], s["spanId"], s["startTimeUnixNano"]) for rs in doc["resourceSpans"]
            for ss in rs["scopeSpans"] for s in ss["spans"]]
want = spans(json.load(open(sys.argv[1])))
got = [x for f in sys.argv[2:] for x in spans(json.load(open(f)))]
reqs = len({t for t, _, _ in want})
print("# %d batches, %d spans, %d traces" % (len(sys.argv) - 2, len(got), reqs))
# Batches of at most 256 requests, so a trace is never split.
sys.exit(0 if sorted(got) == sorted(want) and len(got) == len(set(got)) and len(sys.argv) - 2 == (reqs + 255) // 256 else 1)
PY
if [ "$(ls "$d"/ok/body-*.json 2>/dev/null | wc -l)" -ge 1 ] && [ -n "$schema" ]; then
	check "what the receiver got is valid under the schema" \
		env NODE_PATH="$schema/node_modules" node tests/tools/otlp_check.js "$schema/protos" "$d"/ok/body-*.json
fi

start_receiver "$d/flaky" --refuse 503 --refuse-first 2 || { not_ok "otlp: the test receiver starts"; exit 1; }
"$A" otlp --endpoint "http://127.0.0.1:$(cat "$d/flaky/port")/" "${REC_FILES[@]}" 2>"$d/flaky/err"
rc=$?
stop_receiver
[ $rc -eq 0 ] && [ "$(awk '{print $3}' "$d/flaky/requests" | head -3 | tr '\n' ' ')" = "503 503 200 " ]
check "a receiver that answers 503 twice gets the batch on the third try (exit 0)" test $? -eq 0

start_receiver "$d/bad" --refuse 400 || { not_ok "otlp: the test receiver starts"; exit 1; }
"$A" otlp --endpoint "http://127.0.0.1:$(cat "$d/bad/port")" "${REC_FILES[@]}" 2>"$d/bad/err"
rc=$?
stop_receiver
cat "$d/bad/err" | sed 's/^/# /'
[ $rc -eq 1 ] && [ "$(wc -l <"$d/bad/err")" -eq 1 ] && grep -q '^error: OTLP receiver .*/v1/traces refused the spans: HTTP 400 (test receiver refuses this one)$' "$d/bad/err" &&
	[ "$(wc -l <"$d/bad/requests")" -eq 1 ]
check "a receiver that answers 400: exit 1, one error line with the status, no retry" test $? -eq 0

start_receiver "$d/down" --refuse 503 || { not_ok "otlp: the test receiver starts"; exit 1; }
"$A" otlp --endpoint "http://127.0.0.1:$(cat "$d/down/port")" "${REC_FILES[@]}" 2>"$d/down/err"
rc=$?
stop_receiver
cat "$d/down/err" | sed 's/^/# /'
[ $rc -eq 1 ] && [ "$(wc -l <"$d/down/err")" -eq 1 ] && grep -q 'HTTP 503.*(after 5 attempts)$' "$d/down/err" &&
	[ "$(wc -l <"$d/down/requests")" -eq 5 ]
check "a receiver that keeps answering 503: 5 attempts, then exit 1 and one error line" test $? -eq 0

# Nobody listens on the port the last receiver had.
"$A" otlp --endpoint "http://127.0.0.1:$(cat "$d/down/port")" "${REC_FILES[@]}" 2>"$d/gone.err"
rc=$?
cat "$d/gone.err" | sed 's/^/# /'
[ $rc -eq 1 ] && [ "$(wc -l <"$d/gone.err")" -eq 1 ] && grep -q '^error: OTLP receiver .* unreachable: .*(after 5 attempts)$' "$d/gone.err"
check "an unreachable receiver: exit 1, one line saying so" test $? -eq 0

"$A" otlp --endpoint ftp://x "${REC_FILES[@]}" 2>"$d/url.err"
[ $? -eq 1 ] && grep -q 'not an http:// or https:// URL' "$d/url.err"
check "a URL that is not http(s) is refused before any work" test $? -eq 0
