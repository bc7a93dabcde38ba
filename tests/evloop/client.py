# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load client of the event-loop workloads: SESSIONS threads, each with its
own keep-alive connection to the gateway, share REQUESTS requests.  The plan
of request n (its stages of back-end calls, which run together, which wait
on a 1 ms timer, work and sizes) is drawn from (SEED, n), so the client knows
what the gateway must do; the gateway's reply names the true (back-end client
port, ordinal) of each call.  Writes one JSON line per request:
  {"id", "client": "ip:port", "conn_index": ordinal on that connection,
   "calls": [[backend client port, ordinal], ...], "stages": the plan}
and a summary line on standard output.  Exits 1 when a request failed.

  client.py --target IP:PORT --sessions S --requests N --seed X --out FILE
"""
import argparse
import json
import random
import socket
import sys
import threading
import time


def plan(seed, n):
    """The stages of request n: lists of calls that run together."""
    rng = random.Random(seed * 1000003 + n)
    if rng.random() < 0.05:
        return []
    stages = []
    for _ in range(rng.randint(1, 3)):
        width = rng.randint(2, 4) if rng.random() < 0.3 else 1
        stages.append([{"d": int(rng.random() < 0.25), "w": rng.choice((0, 0, 50, 200, 500)),
                        "q": rng.randint(10, 1500), "r": rng.randint(10, 3000)}
                       for _ in range(width)])
    return stages


class Session(threading.Thread):
    def __init__(self, shared):
        super().__init__(daemon=True)
        self.shared = shared
        self.error = None

    def run(self):
        try:
            self.serve()
        except (OSError, ValueError, KeyError) as e:
            self.error = "%s: %s" % (type(e).__name__, e)

    # The transport: one JSON line each way.  tests/handoff/client.py
    # overrides open/exchange/close to speak HTTP instead.
    def open(self, host, port):
        """Connects; returns the local (ip, port)."""
        self.sock = socket.create_connection((host, port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = self.sock.makefile("rb")
        return self.sock.getsockname()[:2]

    def exchange(self, n, stages):
        """Sends request n, returns the raw reply (bytes, one JSON object)."""
        msg = {"id": n, "stages": stages, "pad": "p" * (n % 500)}
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        line = self.reader.readline()
        if not line:
            raise OSError("the gateway closed the connection")
        return line

    def close(self):
        self.reader.close()
        self.sock.close()

    def serve(self):
        sh = self.shared
        host, port = sh.args.target.rsplit(":", 1)
        ip, lport = self.open(host, int(port))
        ordinal = 0
        while True:
            n = sh.next_request()
            if n is None:
                break
            stages = plan(sh.args.seed, n)
            raw = self.exchange(n, stages)
            reply = json.loads(raw)
            want = sum(len(s) for s in stages)
            if reply["id"] != n or len(reply["calls"]) != want:
                raise ValueError("request %d: reply %s does not match its plan" % (n, raw[:200]))
            sh.write({"id": n, "client": "%s:%d" % (ip, lport), "conn_index": ordinal,
                      "calls": reply["calls"], "stages": stages})
            ordinal += 1
        self.close()


class Shared:
    def __init__(self, args, out):
        self.args, self.out = args, out
        self.lock = threading.Lock()
        self.issued = 0
        self.calls = 0

    def next_request(self):
        with self.lock:
            if self.issued >= self.args.requests:
                return None
            self.issued += 1
            return self.issued - 1

    def write(self, rec):
        with self.lock:
            self.calls += len(rec["calls"])
            self.out.write(json.dumps(rec) + "\n")


def main(session_class=Session):
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--sessions", type=int, default=16)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    t0 = time.monotonic()
    with open(args.out, "w") as out:
        shared = Shared(args, out)
        sessions = [session_class(shared) for _ in range(args.sessions)]
        for s in sessions:
            s.start()
        for s in sessions:
            s.join()
    errors = [s.error for s in sessions if s.error]
    for e in errors:
        print("client.py: %s" % e, file=sys.stderr)
    print(json.dumps({"requests": shared.issued, "errors": len(errors), "calls": shared.calls,
                      "seconds": round(time.monotonic() - t0, 3)}))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
