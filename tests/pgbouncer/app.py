#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The threaded service of tests/pgbouncer (README.md): an HTTP/1.1 server, a
thread per connection (http.server), with a pool of psycopg2 connections to
the relay (PgBouncer, haproxy) in autocommit, so each query is a transaction
of its own that PgBouncer in transaction pooling may run on any of its
server connections.

GET /r?id=N&k=K runs K queries, each carrying the request's id in a comment
as real applications do (sqlcommenter, Rails' marginalia), and answers with
the statements it ran (the client's truth).  With --shared P, P percent of
the requests first run one statement that is the same for all (a `SELECT 1`
habit): two clients' identical queries, which their bytes cannot tell apart."""
import argparse
import json
import queue
import random
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg2


SHARED = "SELECT count(*) FROM items WHERE hits >= 0"


def statements(rid, k, shared):
    """The K statements of request rid: a query per step, the id in each,
    after the shared one for shared percent of the requests."""
    out = [SHARED] if random.Random(rid).random() * 100 < shared else []
    for j in range(k):
        row = (rid * 7 + j * 131) % 1000
        if j % 2 == 0:
            out.append("SELECT val FROM items WHERE id = %d /* request %d step %d */" % (row, rid, j))
        else:
            out.append("UPDATE items SET hits = hits + 1 WHERE id = %d /* request %d step %d */"
                       % (row, rid, j))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--pool", type=int, default=8)
    ap.add_argument("--shared", type=float, default=0)
    args = ap.parse_args()
    pool = queue.Queue()
    for _ in range(args.pool):
        c = psycopg2.connect(args.dsn)
        c.autocommit = True
        pool.put(c)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
            rid, k = int(q["id"][0]), int(q["k"][0])
            sts = statements(rid, k, args.shared)
            conn = pool.get()
            try:
                with conn.cursor() as cur:
                    for s in sts:
                        cur.execute(s)
                        if cur.description:
                            cur.fetchall()
            finally:
                pool.put(conn)
            body = json.dumps({"id": rid, "statements": sts}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    host, port = args.listen.rsplit(":", 1)
    srv = ThreadingHTTPServer((host, int(port)), Handler)
    srv.daemon_threads = True
    print("app: listening on %s, %d connections to the relay" % (args.listen, args.pool),
          flush=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    threading.Event().wait()


if __name__ == "__main__":
    main()
