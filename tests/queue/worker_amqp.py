#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A consumer of tests/queue's RabbitMQ variant (README.md): one process,
one thread, consuming the queue (basic.consume, prefetch 1) through pika's
BlockingConnection; for each job delivered, K calls to the back end
(GET /w?id=N&step=J on one keep-alive connection), then basic.ack.  Its
truth (--out, JSON lines, one per job) is worker.py's: the job's request
id, this worker's pid, and each back-end call's connection address and
ordinal there."""
import argparse
import http.client
import json
import os
import signal
import sys

import pika

import pikawaker  # noqa: F401  (pikawaker.py: why)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--amqp", required=True)
    ap.add_argument("--back", required=True)
    ap.add_argument("--queue", default="jobs")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    host, port = args.amqp.rsplit(":", 1)
    bhost, bport = args.back.rsplit(":", 1)
    conn = pika.BlockingConnection(pika.ConnectionParameters(host, int(port), heartbeat=0))
    ch = conn.channel()
    ch.queue_declare(args.queue)
    ch.basic_qos(prefetch_count=1)
    back = http.client.HTTPConnection(bhost, int(bport), timeout=30)
    out = open(args.out, "a", buffering=1)
    state = {"ordinal": 0, "addr": None}

    def run(ch, method, props, body):
        j = json.loads(body)
        calls = []
        for step in range(j["k"]):
            back.request("GET", "/w?id=%d&step=%d" % (j["id"], step))
            if state["addr"] is None:
                state["addr"] = "%s:%d" % back.sock.getsockname()[:2]
            back.getresponse().read()
            calls.append([state["addr"], state["ordinal"]])
            state["ordinal"] += 1
        out.write(json.dumps({"id": j["id"], "worker": os.getpid(), "job": body.decode(),
                              "calls": calls}) + "\n")
        ch.basic_ack(method.delivery_tag)

    ch.basic_consume(args.queue, run)
    print("worker %d: consuming %s" % (os.getpid(), args.queue), flush=True)
    ch.start_consuming()


if __name__ == "__main__":
    main()
