# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load client of the real-servers scenario: CONNS threads, each with its own
HTTP/1.1 keep-alive connection to nginx, share REQUESTS requests.  Request n
carries a seed drawn from (SEED, n), so the same seed gives the same work.
Writes one JSON line per request: its own view (local ip:port, 0-based ordinal
on that connection, status, response time) and the app's truth headers.

With --warmup N --go FILE, the connections first carry N requests, then
GET /mark tells the app to count its connections' exchanges from zero again,
and the client waits until FILE exists (the recorders start meanwhile) before
the REQUESTS that count: a recording that starts on a running system, with
keep-alive connections already open and used.  Their conn_index is then the
ordinal since the mark; conn_ordinal stays the ordinal since the connection
opened, as nginx counts.  Warm-up requests are written with "warmup": true.

  client.py --target IP:PORT --conns N --requests N --seed N --out FILE
            [--warmup N --go FILE]
"""
import argparse
import http.client
import json
import os
import random
import sys
import threading
import time

TRUTH_HEADERS = ("X-Rid", "X-Sql", "X-Redis", "X-Hop", "X-Calls")


class Session:
    """One keep-alive connection and the requests sent on it."""

    def __init__(self, args, out, out_lock):
        self.args, self.out, self.out_lock = args, out, out_lock
        self.conn = None
        self.addr = None
        self.ordinal = 0
        self.base = 0  # ordinal of the first request that counts

    def connect(self):
        host, port = self.args.target.rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.conn.connect()
        self.conn.auto_open = 0  # never reconnect behind our back: the address is the identity
        ip, lport = self.conn.sock.getsockname()[:2]
        self.addr = "%s:%d" % (ip, lport)
        self.ordinal = 0
        self.base = 0

    def one(self, n, path=None):
        seed = random.Random(self.args.seed * 1000003 + n).getrandbits(31)
        if self.conn is None:
            self.connect()
        rec = {"n": n, "seed": seed, "client": self.addr, "conn_index": self.ordinal - self.base,
               "conn_ordinal": self.ordinal}
        t = time.monotonic_ns()
        try:
            self.conn.request("GET", path or "/work?s=%d" % seed)
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

    def write(self, rec):
        with self.out_lock:
            self.out.write(json.dumps(rec) + "\n")

    def work(self, next_request, warmup):
        while True:
            n = next_request()
            if n is None:
                break
            rec = self.one(n)
            if warmup:
                rec["warmup"] = True
            self.write(rec)


def run_phase(sessions, first, count, warmup=False):
    counter = iter(range(first, first + count))
    lock = threading.Lock()

    def next_request():
        with lock:
            return next(counter, None)

    threads = [threading.Thread(target=s.work, args=(next_request, warmup), daemon=True)
               for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--target", required=True)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--warmup", type=int, default=0)
    ap.add_argument("--go", help="with --warmup: wait for this file before the requests")
    args = ap.parse_args()
    out_lock = threading.Lock()
    with open(args.out, "w") as out:
        sessions = [Session(args, out, out_lock) for _ in range(args.conns)]
        if args.warmup:
            run_phase(sessions, -args.warmup, args.warmup, warmup=True)
            mark = sessions[0].one(-args.warmup - 1, "/mark")
            mark["warmup"] = True
            sessions[0].write(mark)
            if mark.get("status") != 200:
                sys.exit("client.py: /mark failed: %s" % mark)
            for s in sessions:
                s.base = s.ordinal
            out.flush()
            print("client.py: warm, waiting for %s" % args.go, file=sys.stderr, flush=True)
            while args.go and not os.path.exists(args.go):
                time.sleep(0.05)
        t0 = time.monotonic()
        run_phase(sessions, 0, args.requests)
        for s in sessions:
            if s.conn is not None:
                s.conn.close()
    elapsed = time.monotonic() - t0
    print(json.dumps({"requests": args.requests, "conns": args.conns, "seconds": round(elapsed, 3),
                      "rps": round(args.requests / elapsed, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
