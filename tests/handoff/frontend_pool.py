# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Python front end of the hand-off workloads: one thread per client
connection reads a request (one JSON line, tests/evloop/client.py) and hands
its back-end calls to a shared ThreadPoolExecutor of 4 worker threads; each
worker owns one persistent connection to the back end (tests/evloop/backend.py),
opened when the worker starts.  The connection thread waits for the calls:
a stage of one call through submit().result(), a wider stage through
executor.map, so the thread that sends a call is never the one that read the
request.  A call marked "d" first sleeps 1 ms on its worker.

  frontend_pool.py LISTEN_IP:PORT BACKEND_IP:PORT
"""
import concurrent.futures
import json
import socket
import sys
import threading
import time

WORKERS = 4


def split_addr(addr):
    host, port = addr.rsplit(":", 1)
    return host, int(port)


class Worker(threading.local):
    """The calling worker's own back-end connection."""
    sock = None
    reader = None


def worker_init(backend, mine):
    mine.sock = socket.create_connection(backend, timeout=30)
    mine.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    mine.reader = mine.sock.makefile("rb")


def backend_call(mine, call):
    if call.get("d"):
        time.sleep(0.001)
    msg = {"w": call["w"], "r": call["r"], "pad": "q" * call["q"]}
    mine.sock.sendall(json.dumps(msg).encode() + b"\n")
    line = mine.reader.readline()
    if not line:
        raise ConnectionError("the back end closed a worker's connection")
    reply = json.loads(line)
    return [reply["port"], reply["ord"]]


def run_plan(pool, call, stages):
    """The plan's calls on the pool, stage after stage: a stage of one call
    through submit().result(), a wider one through executor.map; returns
    what call returned for each, in the plan's order."""
    calls = []
    for stage in stages:
        if len(stage) == 1:
            calls.append(pool.submit(call, stage[0]).result())
        else:
            calls += pool.map(call, stage)
    return calls


def serve_client(pool, mine, conn):
    reader = conn.makefile("rb")
    try:
        for line in reader:
            req = json.loads(line)
            calls = run_plan(pool, lambda c: backend_call(mine, c), req["stages"])
            conn.sendall(json.dumps({"id": req["id"], "calls": calls}).encode() + b"\n")
    except (OSError, ValueError, KeyError) as e:
        print("frontend_pool.py: %s: %s" % (type(e).__name__, e), file=sys.stderr, flush=True)
    finally:
        reader.close()
        conn.close()


def pool_start(initializer, initargs):
    """A ThreadPoolExecutor of WORKERS threads, all started (and so their
    connections opened) before the first request: each submit starts one
    more thread until there are WORKERS, and a barrier keeps the early ones
    busy until the last has started."""
    pool = concurrent.futures.ThreadPoolExecutor(WORKERS, initializer=initializer,
                                                 initargs=initargs)
    started = threading.Barrier(WORKERS)
    for f in [pool.submit(started.wait) for _ in range(WORKERS)]:
        f.result()
    return pool


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: frontend_pool.py LISTEN_IP:PORT BACKEND_IP:PORT")
    listen, backend = split_addr(sys.argv[1]), split_addr(sys.argv[2])
    mine = Worker()
    pool = pool_start(worker_init, (backend, mine))
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(listen)
    srv.listen(64)
    print("frontend_pool.py: listening on %s" % sys.argv[1], file=sys.stderr, flush=True)
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve_client, args=(pool, mine, conn), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
