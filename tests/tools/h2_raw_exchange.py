#!/usr/bin/env python3
"""Hand-made HTTP/2 bytes on loopback, for the recorder's frame walk (test_record_h2.sh).

usage: h2_raw_exchange.py PORT PINGS

No HTTP/2 library: the bytes are placed where the walk has to work.  The
server sends its SETTINGS before it reads anything (as Node.js's does), then
reads to the end.  The client sends the preface and SETTINGS, a HEADERS
header split across two sends, a DATA frame whose header straddles three
iovecs of one sendmsg, a PING whose header ends one send and whose payload is
the next, then PINGS PING frames in one send (more headers than the
recorder walks in one operation, when PINGS is large), then one more frame.
Prints "conn client_port=N" and, per frame the client sent before the flood
of PINGs, "frame seq=OFFSET type=T flags=F stream=S length=L" (OFFSET from the
stream's first byte, the preface's).
"""
import socket
import struct
import sys
import time

from h2bytes import PREFACE, drain, frame, loopback

port, pings = int(sys.argv[1]), int(sys.argv[2])


def serve(c):
    c.sendall(frame(4, 0, 0, struct.pack(">HI", 3, 100)))  # SETTINGS_MAX_CONCURRENT_STREAMS
    drain(c)


cl, t = loopback(port, serve)
sent = []
pos = len(PREFACE)


def note(f):
    global pos
    sent.append((pos, f[3], f[4], struct.unpack(">I", f[5:9])[0] & 0x7fffffff, len(f) - 9))
    pos += len(f)
    return f


pause = lambda: time.sleep(0.05)  # so that the receiver's reads are cut there too, most of the time
cl.sendall(PREFACE + note(frame(4, 0, 0, b"")))
pause()
headers = note(frame(1, 0x4, 1, b"\x82\x86\x84\x41\x8a" + b"h" * 20))
cl.sendall(headers[:4])
pause()
cl.sendall(headers[4:])
pause()
data = note(frame(0, 0x1, 1, b"body" * 10))
cl.sendmsg([data[:3], data[3:11], data[11:]])
pause()
ping = note(frame(6, 0, 0, b"12345678"))
cl.sendall(ping[:9])
pause()
cl.sendall(ping[9:])
pause()
cl.sendall(b"".join(frame(6, 0, 0, struct.pack(">Q", i)) for i in range(pings)))
cl.sendall(frame(7, 0, 0, struct.pack(">II", 0, 0)))  # GOAWAY
cl.shutdown(socket.SHUT_WR)
drain(cl)  # the server's SETTINGS, then its close
t.join()
cl.close()
for seq, ftype, flags, stream, length in sent:
    print(f"frame seq={seq} type={ftype} flags={flags} stream={stream} length={length}")
