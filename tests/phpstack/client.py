# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load client of the PHP stack: CONNS threads, each with its own TLS 1.3,
HTTP/1.1 keep-alive connection to nginx, share REQUESTS requests.  Request n
draws from (SEED, n) how many queries it asks for (0..5), a seed for the
app's query ranges, and whether the client ends its connection after it
(--reconnect: the client sends its TLS close_notify, closes and opens a new
connection with a full handshake).  So the same seed gives the same work.

Each request carries the client's own id (X-Rid).  One JSON line per request:
its own view (id, queries asked ("asked"), the TLS connection's local ip:port, serial
and TLS version, the 0-based ordinal of the request on that connection,
status, start time on CLOCK_MONOTONIC, response time) and the app's truth
headers.

  client.py --target IP:PORT --ca CA.crt --conns N --requests N --seed N
            --out FILE [--reconnect P]
"""
import argparse
import http.client
import json
import random
import ssl
import sys
import threading
import time

TRUTH_HEADERS = ("X-Rid", "X-Queries", "X-Fcgi", "X-Db", "X-Worker")
MAX_QUERIES = 5


class Session:
    """One keep-alive TLS connection at a time, and the requests sent on it."""

    def __init__(self, number, args, tls, out, out_lock):
        self.number, self.args, self.tls = number, args, tls
        self.out, self.out_lock = out, out_lock
        self.conn = None
        self.serial = -1  # connections this session opened, less one
        self.addr = None
        self.ordinal = 0

    def connect(self):
        host, port = self.args.target.rsplit(":", 1)
        self.conn = http.client.HTTPSConnection(host, int(port), timeout=30, context=self.tls)
        self.conn.connect()
        self.conn.auto_open = 0  # never reconnect behind our back: the address is the identity
        ip, lport = self.conn.sock.getsockname()[:2]
        self.addr = "%s:%d" % (ip, lport)
        self.serial += 1
        self.ordinal = 0

    def close(self, goodbye):
        """Ends the connection; with goodbye, with a TLS close_notify first."""
        if goodbye:
            try:
                self.conn.sock.unwrap()  # close_notify, then the server's
            except (OSError, ValueError):
                pass
        self.conn.close()
        self.conn = None

    def one(self, n):
        draw = random.Random(self.args.seed * 1000003 + n)
        queries = draw.randint(0, MAX_QUERIES)
        seed = draw.getrandbits(31)
        leave = draw.random() < self.args.reconnect
        if self.conn is None:
            self.connect()
        rid = "s%dn%d" % (self.args.seed, n)
        rec = {"n": n, "rid": rid, "asked": queries, "client": self.addr,
               "conn": "%d.%d" % (self.number, self.serial), "conn_index": self.ordinal,
               "tls": self.conn.sock.version()}
        t = rec["start_ns"] = time.monotonic_ns()
        try:
            self.conn.request("GET", "/app.php?q=%d&s=%d" % (queries, seed), headers={"X-Rid": rid})
            resp = self.conn.getresponse()
            body = resp.read()
        except (OSError, http.client.HTTPException) as e:
            rec["error"] = "%s: %s" % (type(e).__name__, e)
            self.close(False)
            return rec
        rec["rt_ns"] = time.monotonic_ns() - t
        rec["status"] = resp.status
        if resp.status != 200:
            rec["error"] = body.decode(errors="replace").strip()[:200]
        for h in TRUTH_HEADERS:
            rec[h[2:].lower()] = resp.getheader(h)
        self.ordinal += 1
        if resp.will_close:  # nginx ends the connection: the next one starts at 0
            self.close(False)
        elif leave:
            self.close(True)
        return rec

    def work(self, next_request):
        while True:
            n = next_request()
            if n is None:
                break
            rec = self.one(n)
            with self.out_lock:
                self.out.write(json.dumps(rec) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", required=True)
    ap.add_argument("--ca", required=True)
    ap.add_argument("--conns", type=int, default=8)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reconnect", type=float, default=0.02)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    tls = ssl.create_default_context(cafile=args.ca)
    tls.minimum_version = ssl.TLSVersion.TLSv1_3
    counter = iter(range(args.requests))
    lock, out_lock = threading.Lock(), threading.Lock()

    def next_request():
        with lock:
            return next(counter, None)

    t0 = time.monotonic()
    with open(args.out, "w") as out:
        sessions = [Session(i, args, tls, out, out_lock) for i in range(args.conns)]
        threads = [threading.Thread(target=s.work, args=(next_request,), daemon=True)
                   for s in sessions]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for s in sessions:
            if s.conn is not None:
                s.close(False)
    elapsed = time.monotonic() - t0
    print(json.dumps({"requests": args.requests, "conns": args.conns,
                      "connections": sum(s.serial + 1 for s in sessions),
                      "seconds": round(elapsed, 3), "rps": round(args.requests / elapsed, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
