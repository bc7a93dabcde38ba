#!/usr/bin/env python3
"""Writes fuzz_analyze seeds whose records include VPR_PAYLOAD: one machine,
two hosts (network namespaces), an HTTP call and a PostgreSQL call whose
request and reply bytes were captured, and one payload record whose len
runs past it (damaged).  The records are built here, as the recorder lays
them out (include/vpath/record.h), in the target's input format
(make_seed.py).

    tests/fuzz/payload_seed.py OUT [--pipelines]

--pipelines: then two HTTP/1.1 requests and two Redis commands, each pair
sent in one write and answered in one (analyzer/pipeline.c cuts them)."""
import socket
import struct
import sys

SOCK_OP, CONN, PAYLOAD = 1, 2, 7
SEND, RECV = 0, 1
CONNECTED, ACCEPTED = 1, 2


def hdr(typ, size, tid, ts):
    return struct.pack("<HHIQ", typ, size, tid, ts)


def op(ts, tid, cookie, pid, n, seq_end, d):
    return hdr(SOCK_OP, 40, tid, ts) + struct.pack("<QIIIBBH", cookie, pid, n, seq_end, d, 0, 0)


def payload(ts, tid, cookie, pid, n, seq_end, d, data, length=None):
    length = len(data) if length is None else length
    body = data + b"\0" * (-len(data) % 8)
    size = 40 + len(body)
    return hdr(PAYLOAD, size, tid, ts) + struct.pack("<QIIIHBB", cookie, pid, seq_end, n, length, d, 0) + body


def conn(ts, cookie, pid, role, local, remote, snd, rcv):
    (la, lp), (ra, rp) = local, remote
    return hdr(CONN, 80, 0, ts) + struct.pack(
        "<QIIBBBBB3sHHIII16s16s", cookie, pid, 1, socket.AF_INET, 2, 1, 0, role, b"", lp, rp,
        snd, rcv, 0, socket.inet_aton(la) + bytes(12), socket.inet_aton(ra) + bytes(12))


def call(recs_c, recs_s, t, cc, sc, cseq, sseq, req, rep, cut=None):
    """One exchange: both ends' operations, each followed by its payload."""
    c_end, s_end = cseq + len(req), sseq + len(rep)
    capture = req[:cut] if cut else req
    recs_c += op(t, 101, cc, 100, len(req), c_end, SEND) + payload(t, 101, cc, 100, len(req), c_end, SEND, capture)
    recs_s += op(t + 50, 201, sc, 200, len(req), c_end, RECV) + payload(t + 50, 201, sc, 200, len(req), c_end, RECV, capture)
    recs_s += op(t + 500, 201, sc, 200, len(rep), s_end, SEND) + payload(t + 500, 201, sc, 200, len(rep), s_end, SEND, rep)
    recs_c += op(t + 550, 101, cc, 100, len(rep), s_end, RECV) + payload(t + 550, 101, cc, 100, len(rep), s_end, RECV, rep)
    return c_end, s_end


def main():
    out = sys.argv[1]
    a, b = bytearray(), bytearray()
    cli, srv = ("10.0.0.1", 40000), ("10.0.0.2", 80)
    a += conn(1000, 11, 100, CONNECTED, cli, srv, 5000, 9000)
    b += conn(1000, 21, 200, ACCEPTED, srv, cli, 9000, 5000)
    cs, ss = call(a, b, 10000, 11, 21, 5000, 9000, b"GET /cart?id=7 HTTP/1.1\r\nHost: x\r\n\r\n",
                  b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    q = b"SELECT * FROM t WHERE id = 5\0"
    cs, ss = call(a, b, 20000, 11, 21, cs, ss, b"Q" + struct.pack(">I", 4 + len(q)) + q,
                  b"E\0\0\0\x13SERROR\0C42P01\0\0Z\0\0\0\x05I", cut=16)
    if "--pipelines" in sys.argv[2:]:
        cs, ss = call(a, b, 24000, 11, 21, cs, ss,
                      b"GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n",
                      b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
                      b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        cs, ss = call(a, b, 26000, 11, 21, cs, ss,
                      b"*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", b"+PONG\r\n$1\r\nv\r\n")
    # damaged: len says 200, the record holds 8
    b += payload(30000, 201, 21, 200, 300, ss, SEND, b"HTTP/1.1", length=200)
    seed = bytearray([1 | (3 << 3), 63])
    for recs in (a, b):
        seed += struct.pack("<I", len(recs)) + recs
    open(out, "wb").write(seed)


if __name__ == "__main__":
    main()
