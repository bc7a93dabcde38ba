# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Python asyncio gateway of the HTTP event-loop workload, with the habits
of gateway_http.js written by hand on asyncio streams: HTTP/1.1 keep-alive
from the clients (POST /plan, the plan on the body's first line), a pool of
POOL_SIZE persistent HTTP/1.1 back-end connections in an asyncio.Queue
(callers wait in FIFO order), the calls of a stage together
(asyncio.gather), a call d.w.q.r with d = 1 first sleeping 1 ms, and the
request's trace id forwarded in each call's traceparent with a new parent
id (with --no-forward, each call starts a trace of its own).

  gateway_http_asyncio.py LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward]
"""
import asyncio
import json
import os
import re
import signal
import sys

from gateway_asyncio import POOL_SIZE, split_addr

TRACEPARENT = re.compile(r"^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$")


async def read_message(reader):
    """One HTTP/1.1 message: (first line, headers with lowercase names, body);
    None at the end of the stream."""
    first = await reader.readline()
    if not first:
        return None
    headers = {}
    while True:
        line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
        if not line:
            break
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", 0)))
    return first.decode("latin-1").rstrip("\r\n"), headers, body


def message(first, headers, body):
    head = [first] + ["%s: %s" % kv for kv in headers] + ["Content-Length: %d" % len(body), "", ""]
    return "\r\n".join(head).encode("latin-1") + body


def parse_plan(text):
    """'d.w.q.r,d.w.q.r|...' -> [[{d, w, q, r}, ...], ...] (tests/handoff/client.py plan_text)."""
    if not text:
        return []
    return [[dict(zip("dwqr", map(int, c.split(".")))) for c in stage.split(",")]
            for stage in text.split("|")]


class Gateway:
    def __init__(self, backend, forward):
        self.backend, self.forward = backend, forward
        self.pool = asyncio.Queue()

    async def connect(self):
        for _ in range(POOL_SIZE):
            self.pool.put_nowait(await asyncio.open_connection(*self.backend))

    async def call(self, trace_id, call):
        if call["d"]:
            await asyncio.sleep(0.001)
        reader, writer = await self.pool.get()
        try:
            body = json.dumps({"w": call["w"], "r": call["r"], "pad": "q" * call["q"]}).encode()
            tp = "00-%s-%s-01" % (trace_id or os.urandom(16).hex(), os.urandom(8).hex())
            writer.write(message("POST /call HTTP/1.1", [("traceparent", tp),
                                                         ("Host", "%s:%d" % self.backend),
                                                         ("Content-Type", "application/json")], body))
            reply = await read_message(reader)
            if reply is None:
                raise ConnectionError("back end closed a pooled connection")
            got = json.loads(reply[2])
            return [got["port"], got["ord"]]
        finally:
            self.pool.put_nowait((reader, writer))

    async def serve(self, reader, writer):
        try:
            while (req := await read_message(reader)) is not None:
                _, headers, body = req
                m = TRACEPARENT.match(headers.get("traceparent", ""))
                trace_id = m.group(1) if m and self.forward else None
                calls = []
                for stage in parse_plan(body.split(b"\n", 1)[0].decode()):
                    calls += await asyncio.gather(*(self.call(trace_id, c) for c in stage))
                out = json.dumps({"id": int(headers["x-request-id"]), "calls": calls}).encode()
                writer.write(message("HTTP/1.1 200 OK", [("Content-Type", "application/json")], out))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


async def main(args):
    if len(args) not in (2, 3) or args[2:] not in ([], ["--no-forward"]):
        sys.exit("usage: gateway_http_asyncio.py LISTEN_IP:PORT BACKEND_IP:PORT [--no-forward]")
    gw = Gateway(split_addr(args[1]), args[2:] != ["--no-forward"])
    await gw.connect()
    # The loop holds tasks weakly: the serving ones are kept here.
    tasks, failed, stop = set(), [], asyncio.Event()

    def finished(task):
        tasks.discard(task)
        if not task.cancelled() and task.exception():
            failed.append(task.exception())
            print("gateway_http_asyncio.py: %s" % task.exception(), file=sys.stderr, flush=True)
            stop.set()

    def accepted(reader, writer):
        task = asyncio.create_task(gw.serve(reader, writer))
        task.add_done_callback(finished)
        tasks.add(task)

    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(accepted, *split_addr(args[0]))
    print("gateway_http_asyncio.py: listening on %s" % args[0], file=sys.stderr, flush=True)
    async with server:
        await stop.wait()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
