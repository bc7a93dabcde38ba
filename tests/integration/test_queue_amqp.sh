#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# A RabbitMQ work queue (tests/queue/README.md, --broker rabbitmq): a
# threaded web front publishes a job per request (pika, publisher confirms)
# and answers; 2 consumer processes (basic.consume, prefetch 1) make each
# job's 1-4 calls to a back end and ack.  Recorded with --capture 256 on
# port 5672, each job's work (the delivery and the calls its consumer made
# until its next ack) hangs under the basic.publish that published it, as
# an asynchronous hop (basis queued): every request found, every hop marked
# exact right, at least 99% of the jobs' work under the request that
# published them.  Then the scorer must fail a copy with a hop moved or a
# request lost.  Then a fanout exchange to two queues, each copy's work
# under the one publish.  OTLP: each hop's span links to its publisher's span, with
# the messaging attributes.  RabbitMQ takes 10-60 s to start: one run, few
# requests.
cd "$(dirname "$0")/../.."
source tests/lib.sh
source tests/e2e/harness.sh

e2e_require "a RabbitMQ work queue"
seed=${VPATH_SEED:-7}
requests=${QUEUE_REQUESTS:-300}
echo "# seed $seed (set VPATH_SEED to change it), $requests requests"
keep=$(scratch_dir)
web=10.211.0.1:8000 amqp=10.211.0.2:5672 back=10.211.0.4:8100
d=$keep/run
tests/queue/run.sh --broker rabbitmq --requests "$requests" --sessions 4 --seed "$seed" \
	--min-accuracy 99 --keep "$d" >"$keep/run.out" 2>"$keep/run.err"
rc=$?
sed 's/^/# /' "$keep/run.out"
if [ $rc -eq 2 ] && grep -q "missing:" "$keep/run.err"; then
	skip "queue over RabbitMQ" "$(grep -o 'missing:.*' "$keep/run.err")"
	exit 0
fi
[ $rc -ne 2 ] || sed 's/^/# /' "$keep/run.err"
check "RabbitMQ queue, --capture 256 on 5672: the gates pass (99% of the jobs' work under their request, every exact hop right)" \
	[ $rc -eq 0 ]
hops() { grep -o '"basis": *"queued"' "$d/found.json" 2>/dev/null | wc -l; }
check "RabbitMQ queue: jobs hung under their publish as queued hops ($(hops) links)" \
	[ "$(hops)" -gt 0 ]
# Fan-out (--fanout): each job published to a fanout exchange bound to two
# queues, each with its consumer; both copies' work hangs under the one
# publish (the scorer counts a request right only with both).
f=$keep/fanout
tests/queue/run.sh --broker rabbitmq --fanout --requests "${QUEUE_FANOUT_REQUESTS:-200}" \
	--sessions 4 --seed "$seed" --min-accuracy 99 --keep "$f" >"$keep/fanout.out" 2>"$keep/fanout.err"
rc=$?
sed 's/^/# /' "$keep/fanout.out"
[ $rc -ne 2 ] || sed 's/^/# /' "$keep/fanout.err"
check "RabbitMQ fan-out to 2 queues: the gates pass (99% of the requests with both copies' work under them, every exact hop right)" \
	[ $rc -eq 0 ]
# OTLP (docs/otlp.md): each hop's first span links to its publisher's
# span in the same trace, a basic.publish with the messaging attributes;
# the delivery's span says receive, with its exchange or queue.
"$VPATH_ANALYZE" otlp -o "$d/otlp.json" "$d"/*.vpr 2>/dev/null &&
	python3 - "$d/otlp.json" <<'PY'
import json, sys
def attrs(o):
    return {a["key"]: list(a["value"].values())[0] for a in o.get("attributes", [])}
spans = {}
for rs in json.load(open(sys.argv[1]))["resourceSpans"]:
    for ss in rs["scopeSpans"]:
        for s in ss["spans"]:
            spans[(s["traceId"], s["spanId"])] = s
linked = bad = received = 0
for s in spans.values():
    a = attrs(s)
    received += a.get("messaging.operation.type") == "receive" and \
        a.get("messaging.system") == "rabbitmq" and a.get("messaging.destination.name") in ("jobs", "jobs.fanout")
    for l in s.get("links", []):
        p = spans.get((l["traceId"], l["spanId"]))
        pa = attrs(p) if p else {}
        ok = p is not None and l["traceId"] == s["traceId"] and \
            pa.get("messaging.operation.type") == "send" and pa.get("messaging.system") == "rabbitmq"
        linked += ok
        bad += not ok
print("# otlp: %d hop spans linked to their publish, %d links wrong, %d deliveries with messaging attributes"
      % (linked, bad, received))
sys.exit(0 if linked and not bad and received else 1)
PY
check "RabbitMQ queue, OTLP: each hop's span links to its basic.publish span (messaging attributes: send, receive, exchange or queue)" \
	[ $? -eq 0 ]
for what in move lose; do
	rc=2
	[ -f "$d/found.json" ] && python3 tests/queue/score.py --truth "$d/truth.jsonl" \
		--jobs "$d/jobs.jsonl" --found "$d/found.json" --web $web --redis $amqp \
		--back $back --break $what >/dev/null
	rc=$?
	check "RabbitMQ queue: the scorer fails the analysis with one hop or request broken: $what" \
		[ $rc -eq 1 ]
done
exit 0
