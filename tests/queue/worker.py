#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A consumer of tests/queue (README.md): one process, one thread, that
waits for a job and runs each job it is given.  --mode list: BRPOP on the
list; blmove: the reliable-queue habit, BLMOVE onto a processing list of
its own, the job's work, then LREM of the job there; stream: XREADGROUP
(group `workers`, one entry at a time), the job's work, then XACK;
pubsub: SUBSCRIBE to the channel (every worker gets every job), the job's
work, then LPUSH of its pid on `done:N`, where the web front waits.  A job
is K calls
to the back end (GET /w?id=N&step=J on one keep-alive connection).  Its
truth (--out, JSON lines, one per job, written as the job ends) is the
job's request id, this worker's pid, and each back-end call's connection
address and ordinal there (what vpath-analyze reports as client.addr and
conn_index)."""
import argparse
import http.client
import json
import os
import signal
import sys

import redis


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--redis", required=True)
    ap.add_argument("--back", required=True)
    ap.add_argument("--queue", default="jobs")
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="list", choices=["list", "blmove", "stream", "pubsub"])
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    rhost, rport = args.redis.rsplit(":", 1)
    bhost, bport = args.back.rsplit(":", 1)
    r = redis.Redis(host=rhost, port=int(rport))
    back = http.client.HTTPConnection(bhost, int(bport), timeout=30)
    ordinal = 0
    addr = None
    out = open(args.out, "a", buffering=1)
    mine = "%s:processing:%d" % (args.queue, os.getpid())
    if args.mode == "stream":
        try:
            r.xgroup_create(args.queue, "workers", id="0", mkstream=True)
        except redis.ResponseError:  # BUSYGROUP: the other worker made it
            pass
    if args.mode == "pubsub":
        sub = r.pubsub()
        sub.subscribe(args.queue)
        while (sub.get_message(timeout=10) or {}).get("type") != "subscribe":
            pass
        msgs = sub.listen()
    r.ping()  # connected before it says it waits
    print("worker %d: waiting on %s (%s)" % (os.getpid(), args.queue, args.mode), flush=True)
    while True:
        if args.mode == "list":
            _, job = r.brpop(args.queue)
        elif args.mode == "blmove":
            job = r.blmove(args.queue, mine, 0, "RIGHT", "LEFT")
        elif args.mode == "pubsub":
            m = next(msgs)
            if m["type"] != "message":
                continue
            job = m["data"]
        else:
            [[_, [(eid, fields)]]] = r.xreadgroup("workers", "w%d" % os.getpid(),
                                                  {args.queue: ">"}, count=1, block=0)
            job = fields[b"job"]
        j = json.loads(job)
        calls = []
        for step in range(j["k"]):
            back.request("GET", "/w?id=%d&step=%d" % (j["id"], step))
            if addr is None:
                addr = "%s:%d" % back.sock.getsockname()[:2]
            back.getresponse().read()
            calls.append([addr, ordinal])
            ordinal += 1
        if args.mode == "blmove":
            r.lrem(mine, 1, job)
        elif args.mode == "stream":
            r.xack(args.queue, "workers", eid)
        elif args.mode == "pubsub":
            r.lpush("done:%d" % j["id"], os.getpid())
        out.write(json.dumps({"id": j["id"], "worker": os.getpid(), "job": job.decode(),
                              "calls": calls}) + "\n")


if __name__ == "__main__":
    main()
