#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A consumer of tests/queue (README.md): one process, one thread, that
waits on the Redis list with BRPOP and runs each job it is given: K calls
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
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    rhost, rport = args.redis.rsplit(":", 1)
    bhost, bport = args.back.rsplit(":", 1)
    r = redis.Redis(host=rhost, port=int(rport))
    back = http.client.HTTPConnection(bhost, int(bport), timeout=30)
    ordinal = 0
    addr = None
    out = open(args.out, "a", buffering=1)
    r.ping()  # connected before it says it waits
    print("worker %d: waiting on %s" % (os.getpid(), args.queue), flush=True)
    while True:
        _, job = r.brpop(args.queue)
        j = json.loads(job)
        calls = []
        for step in range(j["k"]):
            back.request("GET", "/w?id=%d&step=%d" % (j["id"], step))
            if addr is None:
                addr = "%s:%d" % back.sock.getsockname()[:2]
            back.getresponse().read()
            calls.append([addr, ordinal])
            ordinal += 1
        out.write(json.dumps({"id": j["id"], "worker": os.getpid(), "job": job.decode(),
                              "calls": calls}) + "\n")


if __name__ == "__main__":
    main()
