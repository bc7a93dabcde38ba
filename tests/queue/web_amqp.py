#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The web front of tests/queue's RabbitMQ variant (README.md): an HTTP/1.1
server, a thread per connection, that publishes a job per request to a
RabbitMQ queue and answers, as Celery on RabbitMQ does.

GET /r?id=N&k=K publishes the job {"id": N, "k": K, ...} (basic.publish on
the default exchange, routing key `jobs`, with publisher confirms: the
publish waits for the broker's basic.ack) over the thread's own pika
BlockingConnection, opened at its first request, and answers with the
job's bytes (the client's truth).  --fanout N: the job is published
to the fanout exchange `jobs.fanout` instead (routing key `jobs`), bound
to the N queues jobs.1 .. jobs.N, so each queue's consumer gets a copy."""
import argparse
import json
import threading

import pika

import pikawaker  # noqa: F401  (pikawaker.py: why)

from httpserve import dumps, serve


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--amqp", required=True)
    ap.add_argument("--queue", default="jobs")
    ap.add_argument("--fanout", type=int, default=0)
    args = ap.parse_args()
    exchange = "jobs.fanout" if args.fanout else ""
    host, port = args.amqp.rsplit(":", 1)
    params = pika.ConnectionParameters(host, int(port), heartbeat=0)
    local = threading.local()

    def channel():
        if not hasattr(local, "ch"):
            local.conn = pika.BlockingConnection(params)
            local.ch = local.conn.channel()
            local.ch.queue_declare(args.queue)
            local.ch.confirm_delivery()
        return local.ch

    def answer(path, q):
        rid, k = int(q["id"][0]), int(q["k"][0])
        job = json.dumps({"id": rid, "k": k, "kind": "resize-image"})
        channel().basic_publish(exchange, args.queue, job.encode())
        return dumps({"id": rid, "job": job})

    # The queue exists before a worker consumes from it.
    conn = pika.BlockingConnection(params)
    ch = conn.channel()
    ch.queue_declare(args.queue)
    if args.fanout:
        ch.exchange_declare(exchange, "fanout")
        for i in range(1, args.fanout + 1):
            ch.queue_declare("jobs.%d" % i)
            ch.queue_bind("jobs.%d" % i, exchange)
    conn.close()
    serve(args.listen, answer, "web: listening on %s, queue %s" % (args.listen, args.queue))


if __name__ == "__main__":
    main()
