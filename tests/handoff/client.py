# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load client of the hand-off workloads: tests/evloop/client.py (sessions,
plans drawn from (seed, n), truth.jsonl), speaking HTTP/1.1 with keep-alive
when given --http, as the Java and Go front ends want.

An HTTP request is POST /plan with X-Request-Id: n and a body of the plan's
text form (plan_text) on its first line, then n % 500 bytes of padding; the
reply body is {"id": n, "calls": [[back-end client port, ordinal], ...]}.
With --traceparent each request also carries a W3C traceparent of its own
trace (trace id drawn from (seed, n), as a tracing client starts one), for
tests/evloop's HTTP gateway to forward.

  client.py [--http [--traceparent]] --target IP:PORT --sessions S --requests N --seed X --out FILE
"""
import http.client
import os
import random
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "evloop"))
import client as evloop_client  # noqa: E402


def plan_text(stages):
    """Stages joined by '|', the calls of a stage by ',', a call as d.w.q.r
    (1 ms delay first, microseconds of work, request and reply bytes); empty
    when the request makes no call."""
    return "|".join(",".join("%d.%d.%d.%d" % (c["d"], c["w"], c["q"], c["r"]) for c in stage)
                    for stage in stages)


class HttpSession(evloop_client.Session):
    traceparent = False

    def open(self, host, port):
        self.http = http.client.HTTPConnection(host, port, timeout=30)
        self.http.connect()
        self.http.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return self.http.sock.getsockname()[:2]

    def exchange(self, n, stages):
        body = (plan_text(stages) + "\n" + "p" * (n % 500)).encode()
        headers = {"X-Request-Id": str(n)}
        if self.traceparent:
            rng = random.Random("%d-%d" % (self.shared.args.seed, n))
            headers["traceparent"] = "00-%032x-%016x-01" % (rng.getrandbits(128) | 1,
                                                           rng.getrandbits(64) | 1)
        self.http.request("POST", "/plan", body=body, headers=headers)
        resp = self.http.getresponse()
        data = resp.read()
        if resp.status != 200:
            raise OSError("request %d: HTTP %d %s" % (n, resp.status, data[:200]))
        if resp.will_close:
            raise OSError("request %d: the front end will close the connection" % n)
        return data

    def close(self):
        self.http.close()


if __name__ == "__main__":
    http_mode = "--http" in sys.argv
    if http_mode:
        sys.argv.remove("--http")
    if "--traceparent" in sys.argv:
        sys.argv.remove("--traceparent")
        HttpSession.traceparent = True
    sys.exit(evloop_client.main(HttpSession if http_mode else evloop_client.Session))
