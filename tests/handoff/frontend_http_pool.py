# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""HTTP front end of the hand-off workloads (run.sh --app python-http):
frontend_pool.py's habit over HTTP/1.1 with a forwarded trace id.
http.server.ThreadingHTTPServer reads each client connection on a thread of
its own (keep-alive; POST /plan, the plan on the body's first line,
tests/handoff/client.py --http) and hands the request's calls to a shared
ThreadPoolExecutor of 4 workers, stage after stage as frontend_pool.py does;
each worker owns one persistent http.client.HTTPConnection to
tests/evloop/backend_http.py.  Every call carries the request's trace id
(from the client's traceparent) in a traceparent with a new parent id, as
tracing middleware forwards it; a call marked "d" first sleeps 1 ms on its
worker.

  frontend_http_pool.py LISTEN_IP:PORT BACKEND_IP:PORT
"""
import http.client
import http.server
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "evloop"))
from frontend_pool import pool_start, run_plan, split_addr  # noqa: E402
from gateway_http_asyncio import TRACEPARENT, parse_plan  # noqa: E402
from httpjson import JsonHandler  # noqa: E402


class Worker(threading.local):
    """The calling worker's own back-end connection."""
    conn = None


def worker_init(backend, mine):
    mine.conn = http.client.HTTPConnection(*backend, timeout=30)
    mine.conn.connect()
    mine.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def backend_call(mine, trace_id, call):
    if call["d"]:
        time.sleep(0.001)
    body = json.dumps({"w": call["w"], "r": call["r"], "pad": "q" * call["q"]}).encode()
    # http.client sends a bytes body in the same write as the headers.
    mine.conn.request("POST", "/call", body=body, headers={
        "traceparent": "00-%s-%s-01" % (trace_id, os.urandom(8).hex()),
        "Content-Type": "application/json"})
    resp = mine.conn.getresponse()
    data = resp.read()
    if resp.status != 200 or resp.will_close:
        raise ConnectionError("back-end call: HTTP %d, will close %s" % (resp.status, resp.will_close))
    reply = json.loads(data)
    return [reply["port"], reply["ord"]]


class Handler(JsonHandler):
    pool = mine = None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        m = TRACEPARENT.match(self.headers.get("traceparent", ""))
        # A request without one starts a trace of its own, as middleware does.
        trace_id = m.group(1) if m else os.urandom(16).hex()
        try:
            calls = run_plan(self.pool, lambda c: backend_call(self.mine, trace_id, c),
                             parse_plan(body.split(b"\n", 1)[0].decode()))
        except (OSError, ValueError, KeyError) as e:
            print("frontend_http_pool.py: %s: %s" % (type(e).__name__, e), file=sys.stderr, flush=True)
            self.send_error(502)
            return
        self.send_json({"id": int(self.headers["X-Request-Id"]), "calls": calls})


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: frontend_http_pool.py LISTEN_IP:PORT BACKEND_IP:PORT")
    listen, backend = split_addr(sys.argv[1]), split_addr(sys.argv[2])
    Handler.mine = Worker()
    Handler.pool = pool_start(worker_init, (backend, Handler.mine))
    http.server.ThreadingHTTPServer.daemon_threads = True
    srv = http.server.ThreadingHTTPServer(listen, Handler)
    print("frontend_http_pool.py: listening on %s" % sys.argv[1], file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
