#!/usr/bin/env python3
"""Writes fuzz_h2 seeds: h2c exchanges as one socket sees them, cut into
operations in the target's input format (tests/fuzz/fuzz_h2.c): a client
(connected socket) and a server (accepted, its SETTINGS sent before it reads
the preface, as Node.js does), headers split across operations and across
iovecs, a flood of PINGs in one send, an operation the recorder missed, one
whose buffer it cannot find, and bytes that are no frames; and the same
with --capture (header blocks read), at 256 bytes and at a few.

    tests/fuzz/h2_seed.py OUTDIR"""
import os
import struct
import sys

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
SEND, RECV = 0, 1
BUF, IOVEC, MSGHDR, SPECIAL = 0, 1, 2, 3
MISSED, NO_BUFFER, REPEAT = 0, 1, 2


def frame(ftype, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def setup(accepted=False, wrap=False, send_low=0, recv_low=0, capture=0):
    """capture: 0 off, 1 256 bytes, 2 64, 3 9 + (send_low & 63)."""
    return bytes([accepted | wrap << 1 | capture << 2, send_low, recv_low])


def op(d, data, how=BUF, extra=b""):
    """One operation of len(data) bytes: 1..31, or 32 + 8 * k."""
    n = len(data)
    if n < 32:
        head = bytes([d << 7 | how << 5 | (n - 1)])
    else:
        assert (n - 32) % 8 == 0 and (n - 32) // 8 < 256, n
        head = bytes([d << 7 | how << 5 | 31, (n - 32) // 8])
    return head + extra + data


def ops(d, data, sizes):
    """data cut at sizes (cycled), each a legal operation length; the rest as one."""
    out, i, k = b"", 0, 0
    while i < len(data):
        n = min(sizes[k % len(sizes)], len(data) - i)
        if n >= 32:
            n = 32 + (n - 32) // 8 * 8
        out += op(d, data[i:i + n])
        i, k = i + n, k + 1
    return out


def cut_at(d, data, points):
    """data as operations ending at points (offsets in data), each cut into legal lengths."""
    out, i = b"", 0
    for end in sorted(set(points)) + [len(data)]:
        while i < min(end, len(data)):
            n = end - i
            if n >= 32:
                n = 32 + min((n - 32) // 8, 255) * 8
            out += op(d, data[i:i + n])
            i += n
    return out


def block_cuts(data, first):
    """Go's bufio cuts: after each HEADERS frame's header, and 5 bytes into its block."""
    at, points = first, []
    while at + 9 <= len(data):
        length = int.from_bytes(data[at:at + 3], "big")
        if data[at + 3] in (1, 9):
            points += [at + 9, at + 14]
        at += 9 + length
    return points


def iovecs(d, data, cuts, spare=0):
    assert len(cuts) <= 3
    k = len(cuts) | spare << 2
    return op(d, data, IOVEC, bytes([k]) + bytes(cuts))


hpack = b"\x82\x86\x84\x41\x8a" + b"h" * 10
c_settings = frame(4, 0, 0, struct.pack(">HI", 3, 100) + struct.pack(">HI", 4, 65535))
c_frames = [frame(8, 0, 0, struct.pack(">I", 1 << 20)), frame(1, 4, 1, hpack), frame(0, 1, 1, b"body" * 6),
            frame(4, 1, 0, b""), frame(6, 0, 0, b"12345678"), frame(1, 5, 3, hpack), frame(7, 0, 0, bytes(8))]
s_settings = frame(4, 0, 0, struct.pack(">HI", 3, 100))
s_frames = [frame(4, 1, 0, b""), frame(1, 4, 1, b"\x88" + b"x" * 7), frame(0, 1, 1, b"ok" * 8),
            frame(3, 0, 3, bytes(4)), frame(6, 1, 0, b"12345678")]
client = PREFACE + c_settings + b"".join(c_frames)
server = s_settings + b"".join(s_frames)

seeds = {
    # A client socket: the preface and its frames in sends, the server's in receives.
    "client-whole": setup() + ops(SEND, client, [32]) + ops(RECV, server, [32]),
    "client-small-ops": setup(wrap=True, send_low=200, recv_low=9) + ops(SEND, client, [16, 5, 9, 13, 1, 30])
    + ops(RECV, server, [3, 11, 7]),
    # A server socket: its SETTINGS sent before it read the preface.
    "server-settings-first": setup(accepted=True) + op(SEND, s_settings) + ops(RECV, client, [24, 32, 16])
    + ops(SEND, server[len(s_settings):], [32]),
    # Headers across iovecs of one sendmsg, and a msghdr.
    "client-iovecs": setup() + op(SEND, PREFACE) + iovecs(SEND, client[24:56], [3, 8], spare=3)
    + op(SEND, client[56:88], MSGHDR, bytes([2, 0, 9])) + ops(SEND, client[88:], [32])
    + iovecs(RECV, server[:32], [0, 9, 0], spare=7) + ops(RECV, server[32:], [32]),
    # A flood of PINGs in one send: more headers than one operation walks.
    "client-ping-flood": setup() + ops(SEND, PREFACE + c_settings, [32])
    + op(SEND, frame(4, 1, 0, b"") * 3, SPECIAL, bytes([REPEAT | 63 << 2])),
    # An operation the recorder did not see, inside a payload and then across a header.
    "client-missed": setup() + op(SEND, client[:40]) + op(SEND, client[40:48], SPECIAL, bytes([MISSED]))
    + ops(SEND, client[48:], [32]) + op(RECV, server[:20]) + op(RECV, server[20:30], SPECIAL, bytes([NO_BUFFER]))
    + ops(RECV, server[30:], [32]),
    # HTTP/1.1, not followed; and a stream that goes wrong after the preface.
    "http1": setup() + op(SEND, b"GET / HTTP/1.1\r\nHost: a\r\n\r\n") + op(RECV, b"HTTP/1.1 200 OK\r\n\r\n"),
    "client-garbage": setup() + op(SEND, PREFACE + c_settings[:8]) + op(SEND, b"\xff" * 32),
}

# Header blocks captured: whole, cut by a small capture, across iovecs and operations.
for name in ["client-whole", "client-small-ops", "server-settings-first", "client-iovecs", "client-missed"]:
    seeds[name + "-capture"] = bytes([seeds[name][0] | 1 << 2]) + seeds[name][1:]
# Header blocks cut from their frame's header and in two across operations
# (Go's bufio writer): carried to the next; then with the other
# direction between (150 ms apart), so that some come too late and are dropped.
cut_client = cut_at(SEND, client, block_cuts(client, 24))
cut_server = cut_at(RECV, server, block_cuts(server, 0))
seeds["client-block-cuts-capture"] = setup(capture=1) + cut_client + cut_server
seeds["client-block-cuts-slow-capture"] = bytes([1 << 2 | 1 << 4, 0, 0]) + op(SEND, client[:24]) \
    + b"".join(op(SEND, client[24 + i:24 + i + 9]) + op(RECV, server[i:i + 9]) for i in range(0, 90, 9))
seeds["client-iovecs-capture-short"] = bytes([seeds["client-iovecs"][0] | 3 << 2, 12]) + seeds["client-iovecs"][2:]
# The same inside TLS (bit 5: libssl's plaintext, blocks carried by the SSL object's key).
for name in ["client-whole-capture", "client-block-cuts-capture", "client-block-cuts-slow-capture",
             "client-small-ops-capture"]:
    seeds["tls-" + name] = bytes([seeds[name][0] | 1 << 5]) + seeds[name][1:]

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
