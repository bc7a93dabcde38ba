#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Pipelines for the real-servers scenario's witness test: several requests
in one write, before any reply.

  pipeline.py --web IP:PORT --cache IP:PORT --out FILE.json

Sends two HTTP/1.1 requests to nginx in one write and reads both replies,
then three Redis commands in one write and reads the three replies.  FILE
gets, per connection, its local address and what was sent in order, so the
check can find their exchanges by address and ordinal.
"""
import argparse
import json
import socket
import sys

# The first is answered by nginx itself (nginx.conf.in): its reply's header
# block fits the capture, so where it ends is known; the second goes to the app.
HTTP_PATHS = ["/pipelined?n=1", "/work?s=12&pipe=2"]
# (command words, the reply's bytes)
REDIS = [(["PING"], b"+PONG\r\n"),
         (["SET", "vpath:pipe", "7"], b"+OK\r\n"),
         (["GET", "vpath:pipe"], b"$1\r\n7\r\n")]


def connect(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ip, lport = s.getsockname()[:2]
    return s, "%s:%d" % (ip, lport)


def read_http_reply(s, buf):
    """One reply with a Content-Length (app.py always sends one): (status, rest of buf)."""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("nginx closed the connection")
        buf += chunk
    head, buf = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next(int(v) for k, v in (ln.split(":", 1) for ln in lines[1:])
                  if k.strip().lower() == "content-length")
    while len(buf) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("nginx closed the connection")
        buf += chunk
    return status, buf[length:]


def http_pipeline(addr, host):
    s, local = connect(addr)
    s.sendall(b"".join(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (p.encode(), host.encode())
                       for p in HTTP_PATHS))
    buf, statuses = b"", []
    for _ in HTTP_PATHS:
        status, buf = read_http_reply(s, buf)
        statuses.append(status)
    s.close()
    return {"protocol": "http", "client": local, "server": addr,
            "sent": [{"method": "GET", "target": p, "status": st}
                     for p, st in zip(HTTP_PATHS, statuses)]}


def resp(words):
    out = b"*%d\r\n" % len(words)
    for w in words:
        out += b"$%d\r\n%s\r\n" % (len(w), w.encode())
    return out


def redis_pipeline(addr):
    s, local = connect(addr)
    s.sendall(b"".join(resp(w) for w, _ in REDIS))
    want = b"".join(r for _, r in REDIS)
    got = b""
    while len(got) < len(want):
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    if got != want:
        raise OSError("Redis replied %r, expected %r" % (got, want))
    return {"protocol": "redis", "client": local, "server": addr,
            "sent": [{"command": w[0]} for w, _ in REDIS]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--web", required=True)
    ap.add_argument("--cache", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    try:
        done = [http_pipeline(args.web, args.web.rsplit(":", 1)[0]), redis_pipeline(args.cache)]
    except (OSError, ValueError, StopIteration) as e:
        print("pipeline.py: %s" % e, file=sys.stderr)
        return 1
    with open(args.out, "w") as f:
        json.dump(done, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
