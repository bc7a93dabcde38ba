#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load for tests/logs: REQUESTS requests over SESSIONS keep-alive
connections to front, each GET /req/RID/K with K = 0..3 calls to back,
seeded.  Writes the truth, one JSON line per request answered: {rid, calls}.

  client.py PORT REQUESTS SESSIONS SEED TRUTH
"""
import http.client
import json
import random
import sys
import threading


def session(port, rids, rng, out, lock):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for rid in rids:
        k = rng.randint(0, 3)
        conn.request("GET", "/req/%d/%d" % (rid, k))
        resp = conn.getresponse()
        resp.read()
        if resp.status == 200:
            with lock:
                out.write(json.dumps({"rid": rid, "calls": k}) + "\n")
    conn.close()


def main():
    port, n, sessions, seed, truth = sys.argv[1:6]
    n, sessions = int(n), int(sessions)
    lock = threading.Lock()
    with open(truth, "w") as out:
        threads = []
        for s in range(sessions):
            rids = list(range(1000 + s, 1000 + n, sessions))
            rng = random.Random(int(seed) * 1000 + s)
            t = threading.Thread(target=session, args=(int(port), rids, rng, out, lock))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()


if __name__ == "__main__":
    main()
