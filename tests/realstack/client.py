# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load client of the real-servers scenario: CONNS threads, each with its own
HTTP/1.1 keep-alive connection to nginx, share REQUESTS requests.  Request n
carries a seed drawn from (SEED, n), so the same seed gives the same work.
Writes one JSON line per request: its own view (local ip:port, 0-based ordinal
on that connection, status, response time) and the app's truth headers.

  client.py --target IP:PORT --conns N --requests N --seed N --out FILE
"""
import argparse
import http.client
import json
import random
import sys
import threading
import time

TRUTH_HEADERS = ("X-Rid", "X-Sql", "X-Redis", "X-Hop", "X-Calls")


class Session(threading.Thread):
    def __init__(self, args, next_request, out, out_lock):
        super().__init__(daemon=True)
        self.args, self.next_request, self.out, self.out_lock = args, next_request, out, out_lock
        self.conn = None
        self.addr = None
        self.ordinal = 0
        self.errors = 0

    def connect(self):
        host, port = self.args.target.rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.conn.connect()
        self.conn.auto_open = 0  # never reconnect behind our back: the address is the identity
        ip, lport = self.conn.sock.getsockname()[:2]
        self.addr = "%s:%d" % (ip, lport)
        self.ordinal = 0

    def one(self, n):
        seed = random.Random(self.args.seed * 1000003 + n).getrandbits(31)
        if self.conn is None:
            self.connect()
        rec = {"n": n, "seed": seed, "client": self.addr, "conn_index": self.ordinal}
        t = time.monotonic_ns()
        try:
            self.conn.request("GET", "/work?s=%d" % seed)
            resp = self.conn.getresponse()
            resp.read()
        except (OSError, http.client.HTTPException) as e:
            rec["error"] = "%s: %s" % (type(e).__name__, e)
            self.conn.close()
            self.conn = None
            return rec
        rec["rt_ns"] = time.monotonic_ns() - t
        rec["status"] = resp.status
        for h in TRUTH_HEADERS:
            rec[h[2:].lower()] = resp.getheader(h)
        self.ordinal += 1
        if resp.will_close:  # the server ends the connection: the next one starts at 0
            self.conn.close()
            self.conn = None
        return rec

    def run(self):
        while True:
            n = self.next_request()
            if n is None:
                break
            rec = self.one(n)
            with self.out_lock:
                self.out.write(json.dumps(rec) + "\n")
        if self.conn is not None:
            self.conn.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", required=True)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    counter = iter(range(args.requests))
    lock = threading.Lock()

    def next_request():
        with lock:
            return next(counter, None)

    out_lock = threading.Lock()
    t0 = time.monotonic()
    with open(args.out, "w") as out:
        sessions = [Session(args, next_request, out, out_lock) for _ in range(args.conns)]
        for s in sessions:
            s.start()
        for s in sessions:
            s.join()
    elapsed = time.monotonic() - t0
    print(json.dumps({"requests": args.requests, "conns": args.conns, "seconds": round(elapsed, 3),
                      "rps": round(args.requests / elapsed, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
