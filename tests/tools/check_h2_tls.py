#!/usr/bin/env python3
"""Check a recording's HTTP/2-inside-TLS records against an h2tls exchange of h2c_exchange.js.

usage: check_h2_tls.py DUMP EXPECT NAME STREAMS [none]

DUMP is `vpath-analyze dump` output, EXPECT the "conn client_port=N" lines of
the exchange, STREAMS how many requests it made.  For each connection: the
ciphertext shows no HTTP/2 (no sock_op has h2_preface, no frame is read in
it); the client's first plaintext write (tls_op) and the server's first
plaintext read carry h2_preface and begin the plaintext at the first byte of
that direction's TCP stream (its ClientHello's or ServerHello's); each
direction's frame headers, all marked tls, tile its plaintext exactly (from
the preface's end, or the stream's start, to the last tls_op's end); the
client's sent headers are the server's received ones at the same positions
and the other way round; every stream is HEADERS, DATA, END_STREAM last both
ways.  With "none": no tls_op and no frame at all (libssl not probed).
Prints TAP lines prefixed with NAME.
"""
import re
import sys

from dumplines import Tap, fields, read_dump

dump_path, expect_path, name, nstreams = sys.argv[1:5]
want_none = len(sys.argv) > 5 and sys.argv[5] == "none"
nstreams = int(nstreams)
tap = Tap(name)
report = tap.report
ops, conns, others = read_dump(dump_path)
frames = [(d, w) for kind, d, w in others if kind == "h2_frame"]
tls_ops = []
for kind, d, w in others:
    if kind == "tls_op":
        m = re.search(r"range=\[(\d+),(\d+)\)", " ".join(w))
        tls_ops.append(dict(ts=int(d["ts"]), cookie=d["cookie"], dir="send" if "send" in w else "recv",
                            range_start=int(m.group(1)), range_end=int(m.group(2)),
                            preface="h2_preface" in w, start="stream_start" in w))

ports = [int(fields(l)["client_port"]) for l in open(expect_path) if l.startswith("conn ")]
report(len(ports) > 0, "the exchange reported its connections")
report(not any(o["preface"] for o in ops), "no TCP operation carries h2_preface (the bytes are ciphertext)")
if want_none:
    report(not tls_ops and not frames, "no plaintext operation and no frame", f"{len(tls_ops)} {len(frames)}")
    sys.exit(1 if tap.failures else 0)
report(all("tls" in w for d, w in frames), "every frame is read in plaintext (marked tls)")


def frames_of(cookie, direction):
    return [dict(seq=int(d["seq"]), type=d.get("type"), flags=int(d.get("flags", "0"), 16),
                 stream=int(d.get("stream", "0")), length=int(d.get("length", "0")), lost=d.get("why"))
            for d, w in frames if d["cookie"] == cookie and direction in w]


for port in ports:
    ends = {}
    for end, role, key in (("client", "connected", "sport"), ("server", "accepted", "dport")):
        cookies = {c["cookie"] for c in conns if c["role"] == role and c[key] == port}
        report(len(cookies) == 1, f"port {port}: one {end} socket recorded", str(sorted(cookies)))
        ends[end] = cookies.pop() if len(cookies) == 1 else None
    if None in ends.values():
        continue
    for sender, receiver, c2s in ((ends["client"], ends["server"], True),
                                  (ends["server"], ends["client"], False)):
        what = f"port {port}: {'client to server' if c2s else 'server to client'}"
        sent, got = frames_of(sender, "send"), frames_of(receiver, "recv")
        report(not any(f["lost"] for f in sent + got), f"{what}: no frames lost",
               str([f for f in sent + got if f["lost"]]))
        report(sent == got and len(sent) > 0,
               f"{what}: {len(sent)} headers sent are the ones received, at the same positions",
               f"sent {sent[:10]} received {got[:10]}")
        for cookie, direction in ((sender, "send"), (receiver, "recv")):
            tcp = sorted((o for o in ops if o["cookie"] == cookie and o["dir"] == direction),
                         key=lambda o: o["ts"])
            plain = sorted((o for o in tls_ops if o["cookie"] == cookie and o["dir"] == direction),
                           key=lambda o: o["ts"])
            mine = frames_of(cookie, direction)
            if not tcp or not plain or not mine:
                report(False, f"{what}: {direction} has operations, plaintext operations and headers")
                continue
            report(plain[0]["range_start"] == tcp[0]["range_start"] and tcp[0]["tls"] and plain[0]["start"],
                   f"{what}: {direction}'s plaintext begins where its handshake does",
                   f"plaintext {plain[0]['range_start']} handshake {tcp[0]['range_start']}")
            report(plain[0]["preface"] == c2s and not any(o["preface"] for o in plain[1:]),
                   f"{what}: {direction}'s first plaintext {'has' if c2s else 'has not'} h2_preface, no later one")
            gaps = [(a["range_end"], b["range_start"]) for a, b in zip(plain, plain[1:])
                    if a["range_end"] != b["range_start"]]
            report(not gaps, f"{what}: {direction}'s plaintext operations follow one another", str(gaps[:5]))
            pos, breaks = plain[0]["range_start"] + (24 if c2s else 0), []
            for f in mine:
                if f["seq"] != pos:
                    breaks.append((pos, f["seq"]))
                pos = (f["seq"] + 9 + f["length"]) % 2**32
            report(not breaks and pos == plain[-1]["range_end"],
                   f"{what}: {direction}'s headers tile its plaintext to the last byte",
                   f"breaks {breaks[:5]}, end {pos} vs {plain[-1]['range_end']}")
        for i in range(1, nstreams + 1):
            sid = 2 * i - 1
            mine = [f for f in sent if f["stream"] == sid]
            types = [f["type"] for f in mine]
            ends_ = [f for f in mine if f["flags"] & 1]
            report(types[:1] == ["HEADERS"] and "DATA" in types and len(ends_) == 1 and ends_[0] is mine[-1],
                   f"{what}: stream {sid} is HEADERS, DATA, END_STREAM last",
                   str([(f["type"], f["flags"]) for f in mine]))
sys.exit(1 if tap.failures else 0)
