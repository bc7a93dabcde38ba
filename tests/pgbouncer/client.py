#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The client of tests/pgbouncer (README.md): S keep-alive sessions, each a
thread with one HTTP/1.1 connection, sharing N requests.  Request i asks
for 1-4 queries (drawn from (seed, i)); its truth line (--out, JSON lines)
is its id, its connection's address and ordinal there (what vpath-analyze
reports as client.addr and conn_index) and what the app answered besides
the id (the statements it ran; tests/queue: the job it queued).  Prints a
summary JSON; exits 1 when a request failed."""
import argparse
import http.client
import json
import random
import sys
import threading
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    host, port = args.target.rsplit(":", 1)
    lock = threading.Lock()
    nxt = [0]
    truth, errors = [], []

    def session():
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        ordinal = 0
        while True:
            with lock:
                i = nxt[0]
                nxt[0] += 1
            if i >= args.requests:
                break
            k = 1 + random.Random(args.seed * 1000003 + i).randrange(4)
            try:
                conn.request("GET", "/r?id=%d&k=%d" % (i, k))
                if ordinal == 0:
                    addr = "%s:%d" % conn.sock.getsockname()[:2]
                r = conn.getresponse()
                body = json.loads(r.read())
                if r.status != 200 or body["id"] != i:
                    raise RuntimeError("status %d" % r.status)
            except Exception as e:  # noqa: BLE001: every failure is reported
                with lock:
                    errors.append("%d: %s" % (i, e))
                break
            with lock:
                truth.append(dict(body, id=i, addr=addr, conn_index=ordinal))
            ordinal += 1
        conn.close()

    t0 = time.time()
    threads = [threading.Thread(target=session) for _ in range(args.sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with open(args.out, "w") as f:
        for t in sorted(truth, key=lambda t: t["id"]):
            f.write(json.dumps(t) + "\n")
    for e in errors[:5]:
        print("client.py: request " + e, file=sys.stderr)
    print(json.dumps({"requests": len(truth), "errors": len(errors),
                      "seconds": round(time.time() - t0, 2)}))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
