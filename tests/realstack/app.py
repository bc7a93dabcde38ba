# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The application tier of the real-servers scenario: a WSGI app for
gunicorn's threaded worker (gthread), behind nginx, in front of PostgreSQL
and Redis.

Per request, a seed in the query string (?s=N) draws how many SQL queries
and Redis commands it makes (sometimes none), in which order, whether it
opens a fresh PostgreSQL connection (startup + SCRAM authentication inside
the request) and whether its body goes out with sendfile.  The reply tells
the ground truth in headers, so that nothing is taken from vpath:

  X-Rid    nginx's $request_id, passed up as X-Request-Id
  X-Sql    SQL queries made; X-Redis  Redis commands made
  X-Hop    "PEER_IP:PORT ORDINAL": the nginx upstream connection this request
           came on and its 0-based ordinal on that keep-alive connection
  X-Calls  the calls in order, ";"-separated "KIND LOCAL_IP:PORT ORDINAL US"
           with KIND q (SQL query), a (a round trip of PostgreSQL's startup
           and authentication) or r (Redis command); ORDINAL counts the
           request/reply exchanges on that back-end connection since the
           pool's warm-up, which ran before any recording could start.

Configuration from the environment: VPATH_PG_DSN, VPATH_REDIS (ip:port),
VPATH_PG_POOL, VPATH_REDIS_POOL, VPATH_RECONNECT (per-request probability of a
fresh PostgreSQL connection), VPATH_PG_MAX (at most this many PostgreSQL
connections in all), VPATH_FILE (a file sent with sendfile), VPATH_BACKGROUND
(seconds between the calls of a background thread, 0 for none) with
VPATH_BACKGROUND_GO and VPATH_BACKGROUND_STOP (files that start and stop it).
"""
import os
import queue
import random
import socket
import sys
import threading
import time
import weakref
from urllib.parse import parse_qs

import psycopg2
import redis

# A fresh connection with sslmode=disable and scram-sha-256: StartupMessage ->
# AuthenticationSASL, SASLInitialResponse -> SASLContinue, SASLResponse ->
# SASLFinal + AuthenticationOk + ParameterStatus... + ReadyForQuery.
PG_AUTH_ROUND_TRIPS = 3

PG_DSN = os.environ.get("VPATH_PG_DSN", "host=127.0.0.1 dbname=vpath user=vpath")
REDIS_HOST, REDIS_PORT = os.environ.get("VPATH_REDIS", "127.0.0.1:6379").rsplit(":", 1)
PG_POOL = int(os.environ.get("VPATH_PG_POOL", "8"))
REDIS_POOL = int(os.environ.get("VPATH_REDIS_POOL", "4"))
RECONNECT = float(os.environ.get("VPATH_RECONNECT", "0.02"))
# Fresh connections join the pool and stay open (a close would put a message
# outside every request on the wire); past this many, requests stop opening them.
PG_MAX = int(os.environ.get("VPATH_PG_MAX", "64"))
FILE = os.environ.get("VPATH_FILE", "")
ITEMS = 1000


def local_addr(sock):
    ip, port = sock.getsockname()[:2]
    return "%s:%d" % (ip, port)


class Backend:
    """One back-end connection and the exchanges made on it since warm-up."""

    def __init__(self, conn, addr, exchanges):
        self.conn = conn
        self.addr = addr
        self.exchanges = exchanges

    def call(self, kind, calls, fn):
        t = time.monotonic_ns()
        result = fn()
        calls.append("%s %s %d %d" % (kind, self.addr, self.exchanges,
                                      (time.monotonic_ns() - t) // 1000))
        self.exchanges += 1
        return result


def pg_connect(calls=None):
    conn = psycopg2.connect(PG_DSN, sslmode="disable", gssencmode="disable")
    conn.autocommit = True  # no BEGIN/COMMIT round trips around each query
    with socket.socket(fileno=os.dup(conn.fileno())) as s:
        b = Backend(conn, local_addr(s), 0)
    if calls is None:
        with conn.cursor() as cur:
            cur.execute("SELECT 1 /* warmup */")
    else:
        # The connection's setup happened inside this request.
        for _ in range(PG_AUTH_ROUND_TRIPS):
            calls.append("a %s %d 0" % (b.addr, b.exchanges))
            b.exchanges += 1
    return b


def redis_connect():
    conn = redis.Connection(host=REDIS_HOST, port=int(REDIS_PORT), socket_timeout=10)
    conn.connect()
    conn.send_command("PING")
    conn.read_response()
    return Backend(conn, local_addr(conn._sock), 0)


# Opened at start, before any recording: connections a recorder must use
# although it never saw them open.
pg_pool = queue.LifoQueue()
pg_opened = PG_POOL
pg_opened_lock = threading.Lock()
redis_pool = queue.Queue()
for _ in range(PG_POOL):
    pg_pool.put(pg_connect())
for _ in range(REDIS_POOL):
    redis_pool.put(redis_connect())
# The requests seen on each connection from nginx, keyed by gunicorn's socket.
hop_counts = weakref.WeakKeyDictionary()
hop_lock = threading.Lock()

def background(interval, go, stop):
    """A thread of the app's own, outside every request (a cache refresher, a
    health check): a query and a command every INTERVAL seconds on its own
    connections, from when file GO exists until file STOP does (the
    recording's window).  Its calls are roots of their own, never part of a
    request."""
    pg, r = pg_connect(), redis_connect()
    print("vpath-app: background calls from %s and %s" % (pg.addr, r.addr),
          file=sys.stderr, flush=True)
    while not os.path.exists(go):
        time.sleep(0.01)
    rounds = 0
    while not os.path.exists(stop):
        with pg.conn.cursor() as cur:
            cur.execute("SELECT count(*) FROM items /* background */")
        r.conn.send_command("INCR", "background")
        r.conn.read_response()
        rounds += 1
        time.sleep(interval)
    # Closing sends PostgreSQL's Terminate message: one more call, without reply.
    pg.conn.close()
    print("vpath-app: background stopped after %d rounds and a close" % rounds,
          file=sys.stderr, flush=True)


if float(os.environ.get("VPATH_BACKGROUND", "0")) > 0:
    threading.Thread(target=background, args=(float(os.environ["VPATH_BACKGROUND"]),
                     os.environ["VPATH_BACKGROUND_GO"], os.environ["VPATH_BACKGROUND_STOP"]),
                     daemon=True).start()
print("vpath-app: ready, %d PostgreSQL and %d Redis connections" % (PG_POOL, REDIS_POOL),
      file=sys.stderr, flush=True)


def sql(backend, calls, rng, rid):
    item = rng.randrange(ITEMS)
    tag = "/* rid=%s */" % rid
    with backend.conn.cursor() as cur:
        if rng.random() < 0.3:
            backend.call("q", calls, lambda: cur.execute(
                "UPDATE items SET hits = hits + 1 WHERE id = %s " + tag, (item,)))
            return b""
        backend.call("q", calls, lambda: cur.execute(
            "SELECT val FROM items WHERE id = %s " + tag, (item,)))
        return cur.fetchone()[0].encode()


def redis_command(calls, rng, rid):
    args = rng.choice([
        ("GET", "item:%d" % rng.randrange(ITEMS)),
        ("SET", "sess:%s" % rid, "x" * rng.randrange(1, 300), "EX", "60"),
        ("INCR", "hits:%d" % rng.randrange(ITEMS)),
    ])
    backend = redis_pool.get()
    try:
        def once():
            backend.conn.send_command(*args)
            return backend.conn.read_response()
        reply = backend.call("r", calls, once)
    finally:
        redis_pool.put(backend)
    return reply if isinstance(reply, bytes) else str(reply).encode()


def want_fresh_pg():
    global pg_opened
    with pg_opened_lock:
        if pg_opened >= PG_MAX:
            return False
        pg_opened += 1
        return True


def serve(environ, rng, rid, calls):
    nsql = rng.choice([0, 0, 1, 1, 2, 3, 5])
    nredis = rng.choice([0, 1, 1, 2, 3])
    ops = ["q"] * nsql + ["r"] * nredis
    rng.shuffle(ops)
    fresh = nsql > 0 and rng.random() < RECONNECT and want_fresh_pg()
    body = []
    pg = None
    try:
        if nsql:
            pg = pg_connect(calls) if fresh else pg_pool.get()
        for op in ops:
            body.append(sql(pg, calls, rng, rid) if op == "q" else redis_command(calls, rng, rid))
    finally:
        if pg is not None:
            pg_pool.put(pg)  # a fresh connection joins the pool
    return nsql, nredis, b"\n".join(body) + b"\n"


def drain(pool):
    items = []
    while True:
        try:
            items.append(pool.get_nowait())
        except queue.Empty:
            return items


def mark():
    """GET /mark (client.py --warmup): every connection's exchanges count from
    zero again, as a recording that starts now sees them.  PostgreSQL's log
    gets a mark statement on each connection, for the checker.  Runs while no
    other request does."""
    pgs, rs = drain(pg_pool), drain(redis_pool)
    for b in pgs:
        with b.conn.cursor() as cur:
            cur.execute("SELECT 1 /* mark */")
        b.exchanges = 0
    for b in rs:
        b.exchanges = 0
    for b in pgs:
        pg_pool.put(b)
    for b in rs:
        redis_pool.put(b)
    with hop_lock:
        for sock in list(hop_counts.keys()):
            hop_counts[sock] = 0
    return "%d PostgreSQL, %d Redis connections\n" % (len(pgs), len(rs))


def application(environ, start_response):
    seed = int(parse_qs(environ.get("QUERY_STRING", "")).get("s", ["0"])[0])
    rng = random.Random(seed)
    rid = environ.get("HTTP_X_REQUEST_ID", "-")
    sock = environ["gunicorn.socket"]
    with hop_lock:
        ordinal = hop_counts.get(sock, 0)
        hop_counts[sock] = ordinal + 1
    if environ.get("PATH_INFO") == "/mark":
        body = mark().encode()
        start_response("200 OK", [("Content-Type", "text/plain"),
                                  ("Content-Length", str(len(body)))])
        return [body]
    calls = []
    nsql, nredis, body = serve(environ, rng, rid, calls)
    headers = [
        ("Content-Type", "text/plain"),
        ("X-Rid", rid),
        ("X-Sql", str(nsql)),
        ("X-Redis", str(nredis)),
        ("X-Hop", "%s:%s %d" % (environ["REMOTE_ADDR"], environ["REMOTE_PORT"], ordinal)),
        ("X-Calls", ";".join(calls)),
    ]
    if FILE and rng.random() < 0.15:
        # gunicorn sends a real file with a known length by sendfile(2).
        size = os.path.getsize(FILE)
        start_response("200 OK", headers + [("Content-Length", str(size))])
        return environ["wsgi.file_wrapper"](open(FILE, "rb"))
    start_response("200 OK", headers + [("Content-Length", str(len(body)))])
    return [body]
