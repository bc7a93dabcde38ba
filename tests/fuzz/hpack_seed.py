#!/usr/bin/env python3
"""Writes fuzz_hpack seeds: one direction's HTTP/2 header blocks in the
target's input format (tests/fuzz/fuzz_hpack.c), coded by hand after RFC
7541 (plain strings; the fuzzer finds Huffman bits): a request whose later
blocks name the first's fields by the dynamic table, a reply with gRPC
trailers, secrets named by the static table, by a literal name and by the
dynamic table, a block split into CONTINUATION frames, padding and
priority, a block cut by the capture and one missed.

    tests/fuzz/hpack_seed.py OUTDIR"""
import os
import sys

CONT, END, PADDED, PRIO, MISSED = 1, 2, 4, 8, 16


def frame(block, ctl=END, cut=0):
    assert len(block) < 256
    return bytes([ctl | cut << 5, len(block)]) + block


def s(text):
    b = text.encode()
    assert len(b) < 127
    return bytes([len(b)]) + b


def lit_inc_new(name, value):
    return b"\x40" + s(name) + s(value)


def lit_inc_idx(index, value):
    assert index < 63
    return bytes([0x40 | index]) + s(value)


TP1 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TP2 = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"
req1 = b"\x83\x86" + lit_inc_idx(4, "/vpath.h2.Work/Call") + lit_inc_idx(1, "10.0.0.2:7100") \
    + lit_inc_new("traceparent", TP1)
# 62 traceparent, 63 :authority, 64 :path: the same fields again, a new trace id.
req2 = b"\x83\x86\xc0\xbf\x7e" + s(TP2)
reply = b"\x88" + lit_inc_idx(31, "application/grpc")
trailers = lit_inc_new("grpc-status", "0") + lit_inc_new("grpc-message", "")
secrets = b"\x82\x84" + lit_inc_idx(23, "Bearer secret") + b"\x00" + s("cookie") + s("a=b") \
    + b"\x7e" + s("Bearer other")

seeds = {
    "request-then-dynamic": frame(req1) + frame(req2),
    "reply-trailers": frame(reply) + frame(trailers) + frame(b"\x88\xbf") + frame(b"\xbf\xbe"),
    "secrets": frame(secrets) + frame(b"\x82\x84\xbe"),
    "continuation": frame(req1[:20], 0) + frame(req1[20:], CONT | END) + frame(req2),
    "padded-priority": frame(bytes([2]) + bytes(5) + req1 + bytes(2), END | PADDED | PRIO) + frame(req2),
    "cut": frame(req1, END, 2) + frame(req2),
    "missed": frame(req1, END | MISSED) + frame(req2),
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
