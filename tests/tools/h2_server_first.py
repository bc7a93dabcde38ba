#!/usr/bin/env python3
"""An HTTP/2 server that speaks first, read by its client before it speaks (test_record_h2.sh).

usage: h2_server_first.py PORT STREAMS

As a gRPC server does (grpc-go, grpcio), the server sends its SETTINGS and a
WINDOW_UPDATE as soon as it accepts; the client reads them, in its socket's
first receive, before it sends its preface.  Then the client sends its
SETTINGS, acknowledges the server's, and makes STREAMS requests (HEADERS,
DATA with END_STREAM), one after the other; the server acknowledges the
client's SETTINGS and answers each request the same way, then says GOAWAY
and closes.  Hand-made bytes on loopback (h2bytes.py).  Prints "conn client_port=N".
"""
import socket
import struct
import sys

from h2bytes import PREFACE, drain, frame, loopback

port, streams = int(sys.argv[1]), int(sys.argv[2])
SETTINGS, HEADERS, DATA, GOAWAY, WINDOW_UPDATE = 4, 1, 0, 7, 8
ACK = END_STREAM = 0x1
END_HEADERS = 0x4


def recv_exactly(s, n):
    got = b""
    while len(got) < n:
        b = s.recv(n - len(got))
        if not b:
            raise EOFError("peer closed")
        got += b
    return got


def read_frame(s):
    h = recv_exactly(s, 9)
    length = int.from_bytes(h[:3], "big")
    return h[3], h[4], struct.unpack(">I", h[5:9])[0] & 0x7fffffff, recv_exactly(s, length)


opening = (frame(SETTINGS, 0, 0, struct.pack(">HI", 3, 100))  # SETTINGS_MAX_CONCURRENT_STREAMS
           + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 20)))


def serve(c):
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    c.sendall(opening)  # before it reads anything
    if recv_exactly(c, len(PREFACE)) != PREFACE:
        raise ValueError("no preface")
    answered = 0
    while answered < streams:
        ftype, flags, stream, _ = read_frame(c)
        if ftype == SETTINGS and not flags & ACK:
            c.sendall(frame(SETTINGS, ACK, 0))
        elif ftype == DATA and flags & END_STREAM:
            c.sendall(frame(HEADERS, END_HEADERS, stream, b"\x88")
                      + frame(DATA, END_STREAM, stream, b"reply" * 8))
            answered += 1
    c.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", 2 * streams - 1, 0)))
    c.shutdown(socket.SHUT_WR)
    drain(c)


cl, t = loopback(port, serve)
# The client's first receive, at its stream's start, before its first send.
if cl.recv(len(opening), socket.MSG_WAITALL) != opening:
    raise ValueError("not the server's SETTINGS")
cl.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(SETTINGS, ACK, 0))
for i in range(streams):
    sid = 2 * i + 1
    cl.sendall(frame(HEADERS, END_HEADERS, sid, b"\x83\x86\x84\x41\x8a" + b"h" * 10)
               + frame(DATA, END_STREAM, sid, b"request" * 4))
    while True:  # its answer, before the next request
        ftype, flags, stream, _ = read_frame(cl)
        if ftype == DATA and stream == sid and flags & END_STREAM:
            break
drain(cl)  # GOAWAY, then the server's close
cl.shutdown(socket.SHUT_WR)
t.join()
cl.close()
