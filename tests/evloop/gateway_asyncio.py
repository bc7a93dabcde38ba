# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Python asyncio gateway of the event-loop workloads, with the habits of
gateway.js: one event loop (asyncio streams), a pool of POOL_SIZE persistent
back-end connections kept in an asyncio.Queue (callers wait in FIFO order
when all are busy), the calls of a stage run together (asyncio.gather), and
a call marked "d" first sleeps 1 ms.  Same protocol as gateway.js: the reply
lists the true (back-end client port, ordinal) of every call, in plan order.

  gateway_asyncio.py LISTEN_IP:PORT BACKEND_IP:PORT
"""
import asyncio
import json
import signal
import sys

POOL_SIZE = 3


def split_addr(addr):
    host, port = addr.rsplit(":", 1)
    return host, int(port)


async def backend_call(pool, call):
    if call.get("d"):
        await asyncio.sleep(0.001)
    reader, writer = await pool.get()
    try:
        msg = {"w": call["w"], "r": call["r"], "pad": "q" * call["q"]}
        writer.write(json.dumps(msg).encode() + b"\n")
        line = await reader.readline()
        if not line:
            raise ConnectionError("back end closed a pooled connection")
        reply = json.loads(line)
        return [reply["port"], reply["ord"]]
    finally:
        pool.put_nowait((reader, writer))


async def serve_client(pool, reader, writer):
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            req = json.loads(line)
            calls = []
            for stage in req["stages"]:
                calls += await asyncio.gather(*(backend_call(pool, c) for c in stage))
            writer.write(json.dumps({"id": req["id"], "calls": calls}).encode() + b"\n")
    except ConnectionError:
        pass
    finally:
        writer.close()


async def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gateway_asyncio.py LISTEN_IP:PORT BACKEND_IP:PORT")
    listen, backend = sys.argv[1:]
    # The event loop keeps only weak references to tasks and a stream's
    # protocol only a weak one to its reader: a task waiting on a borrowed
    # connection's reply would be garbage-collected mid-call without these.
    conns = [await asyncio.open_connection(*split_addr(backend)) for _ in range(POOL_SIZE)]
    tasks = set()
    pool = asyncio.Queue()
    for conn in conns:
        pool.put_nowait(conn)

    failures = []

    def on_done(task):
        tasks.discard(task)
        if not task.cancelled() and task.exception():
            failures.append(task.exception())
            print("gateway_asyncio.py: %s" % task.exception(), file=sys.stderr, flush=True)
            stop.set()

    def on_client(reader, writer):
        task = asyncio.create_task(serve_client(pool, reader, writer))
        tasks.add(task)
        task.add_done_callback(on_done)

    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(on_client, *split_addr(listen))
    print("gateway_asyncio.py: listening on %s" % listen, file=sys.stderr, flush=True)
    async with server:
        await stop.wait()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
