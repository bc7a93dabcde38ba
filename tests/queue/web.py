#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The web front of tests/queue (README.md): an HTTP/1.1 server, a thread
per connection, that queues a job per request on a Redis list and answers
at once, as RQ, Celery and Sidekiq applications do.

GET /r?id=N&k=K pushes the job {"id": N, "k": K, ...} (through redis-py's
connection pool: LPUSH on the list `jobs`, or with --mode stream XADD of
one field `job` on the stream `jobs`) and answers with the job's bytes
(the client's truth).  --mode pubsub: PUBLISH of the job on the channel
`jobs`, then, before answering, a BLPOP on the list `done:N` for each
subscriber PUBLISH reached (each answers there when its work is done)."""
import argparse
import json

import redis

from httpserve import dumps, serve


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--redis", required=True)
    ap.add_argument("--queue", default="jobs")
    ap.add_argument("--mode", default="list", choices=["list", "blmove", "stream", "pubsub"])
    args = ap.parse_args()
    rhost, rport = args.redis.rsplit(":", 1)
    r = redis.Redis(host=rhost, port=int(rport))

    def answer(path, q):
        rid, k = int(q["id"][0]), int(q["k"][0])
        job = json.dumps({"id": rid, "k": k, "kind": "resize-image"})
        if args.mode == "stream":
            r.xadd(args.queue, {"job": job})
        elif args.mode == "pubsub":
            for _ in range(r.publish(args.queue, job)):
                r.blpop("done:%d" % rid, timeout=60)
        else:
            r.lpush(args.queue, job)
        return dumps({"id": rid, "job": job})

    serve(args.listen, answer, "web: listening on %s, queue %s" % (args.listen, args.queue))


if __name__ == "__main__":
    main()
