#!/usr/bin/env python3
"""Check a recording's HTTP/2 marks against an exchange of tests/tools/h2c_exchange.js.

usage: check_h2.py DUMP EXPECT NAME MODE FRAMES STREAMS

DUMP is `vpath-analyze dump` output, EXPECT the "conn client_port=N" lines of
the exchange, MODE h2 or h1 (h2c_exchange.js), raw (h2_raw_exchange.py) or first
(h2_server_first.py), FRAMES "frames" when frame headers must be
recorded (the fast path) or "noframes" (the fallback, which walks none),
STREAMS how many requests the exchange made.  For h2: the client's first
send and the server's first receive carry h2_preface, no other operation
does; with frames, each direction's headers tile its stream exactly (from
the preface's end, or the stream's start, to the last byte), the client's
sent headers are the server's received ones at the same positions and the
other way round, and every request has its HEADERS and its DATA with
END_STREAM both ways.  For raw: the client's first headers are the ones the
exchange printed, and its flood of PINGs loses its frames (a VPR_H2_LOST, after which nothing;
headers are compared below the first lost position of either end).  For first, as for h2, and
the client read the server's first frames before it sent its preface.  For h1: nothing of HTTP/2.  Prints TAP lines
prefixed with NAME.
"""
import sys

from dumplines import Tap, fields, read_dump

dump_path, expect_path, name, mode, want_frames, nstreams = sys.argv[1:7]
want_frames, nstreams = want_frames == "frames", int(nstreams)
tap = Tap(name)
report = tap.report
ops, conns, others = read_dump(dump_path)
frames = [(d, w) for kind, d, w in others if kind == "h2_frame"]

ports = [int(fields(l)["client_port"]) for l in open(expect_path)
         if l.startswith("conn ")]
expect_frames = [fields(l) for l in open(expect_path) if l.startswith("frame ")]
report(len(ports) > 0, "the exchange reported its connections")
checked = set()
for port in ports:
    ends = {"client": {c["cookie"] for c in conns if c["role"] == "connected" and c["sport"] == port},
            "server": {c["cookie"] for c in conns if c["role"] == "accepted" and c["dport"] == port}}
    for end, cookies in ends.items():
        if len(cookies) != 1:
            report(False, f"port {port}: one {end} socket recorded", f"cookies {sorted(cookies)}")
            continue
        cookie = cookies.pop()
        for direction in ("send", "recv"):
            mine = sorted((o for o in ops if o["cookie"] == cookie and o["dir"] == direction),
                          key=lambda o: o["ts"])
            checked.update(id(o) for o in mine)
            what = f"port {port}: {end} {direction}"
            if not mine:
                report(False, f"{what}: recorded")
                continue
            c2s = (end == "client") == (direction == "send")
            want_first = mode != "h1" and c2s
            report(mine[0]["preface"] == want_first,
                   f"{what}: first op {'has' if want_first else 'has not'} h2_preface")
            report(not any(o["preface"] for o in mine[1:]), f"{what}: no later op has h2_preface")

def frames_of(cookie, direction):
    return [dict(seq=int(d["seq"]), type=d.get("type"), flags=int(d.get("flags", "0"), 16),
                 stream=int(d.get("stream", "0")), length=int(d.get("length", "0")),
                 lost=d.get("why"))
            for d, w in frames if d["cookie"] == cookie and direction in w]


def check_frames(port, client, server):
    """Both directions of one h2c connection whose ends are the cookies client and server."""
    for sender, receiver, c2s in ((client, server, True), (server, client, False)):
        what = f"port {port}: {'client to server' if c2s else 'server to client'}"
        sent, got = frames_of(sender, "send"), frames_of(receiver, "recv")
        lost = [f for f in sent + got if f["lost"]]
        if mode == "raw" and c2s:
            report(any(f["lost"] == "too_many" for f in sent),
                   f"{what}: the flood of PINGs in one send loses the frames (too_many)")
        elif mode != "raw":
            report(not lost, f"{what}: no frames lost", str(lost))
        for mine, end in ((sent, "sender"), (got, "receiver")):
            first = next((i for i, f in enumerate(mine) if f["lost"]), len(mine))
            report(first >= len(mine) - 1, f"{what}: nothing follows a lost record at the {end}")
        # Where either end lost its place, the other's headers past it cannot be compared.
        cut = min((f["seq"] for f in lost), key=lambda q: (q - sent[0]["seq"]) % 2**32 if sent else 0,
                  default=None)
        below = lambda fs: [f for f in fs if not f["lost"] and (cut is None or
                            (f["seq"] - cut) % 2**32 >= 2**31)]
        report(below(sent) == below(got) and below(sent),
               f"{what}: {len(below(sent))} headers sent are the ones received, at the same positions",
               f"sent {below(sent)[:20]} received {below(got)[:20]}")
        for end, mine, direction in ((sender, sent, "send"), (receiver, got, "recv")):
            o = sorted((o for o in ops if o["cookie"] == end and o["dir"] == direction), key=lambda o: o["ts"])
            if not o or not mine:
                report(False, f"{what}: {direction} has operations and headers")
                continue
            pos, gaps = o[0]["range_start"] + (24 if c2s else 0), []
            for f in mine:
                if f["seq"] != pos:
                    gaps.append((pos, f["seq"]))
                pos = (f["seq"] + 9 + f["length"]) % 2**32
            report(not gaps and (pos == o[-1]["range_end"] or mine[-1]["lost"]),
                   f"{what}: {direction}'s headers tile its stream to the last byte or a lost record",
                   f"breaks {gaps[:5]}, end {pos} vs {o[-1]['range_end']}")
        report(sent[:1] and sent[0]["type"] == "SETTINGS" and sent[0]["flags"] == 0,
               f"{what}: the first frame is SETTINGS")
        if mode == "raw" and c2s:
            base = sent[0]["seq"] - 24
            names = {0: "DATA", 1: "HEADERS", 4: "SETTINGS", 6: "PING"}
            want = [dict(seq=(base + int(e["seq"])) % 2**32, type=names[int(e["type"])], flags=int(e["flags"]),
                         stream=int(e["stream"]), length=int(e["length"]), lost=None) for e in expect_frames]
            report(sent[:len(want)] == want, f"{what}: split headers found at their positions "
                   "(across sends, across iovecs)", f"want {want} got {sent[:len(want)]}")
        for i in range(1, nstreams + 1 if mode in ("h2", "first") else 0):
            sid = 2 * i - 1
            mine = [f for f in sent if f["stream"] == sid]
            types = [f["type"] for f in mine]
            ends = [f for f in mine if f["flags"] & 1]
            report(types[:1] == ["HEADERS"] and "DATA" in types and len(ends) == 1 and ends[0] is mine[-1],
                   f"{what}: stream {sid} is HEADERS, DATA, END_STREAM last",
                   str([(f["type"], f["flags"]) for f in mine]))


for port in ports:
    ends = {role: {c["cookie"] for c in conns if c["role"] == role and c["sport" if role == "connected" else "dport"] == port}
            for role in ("connected", "accepted")}
    if mode in ("h2", "raw", "first") and want_frames and all(len(c) == 1 for c in ends.values()):
        check_frames(port, next(iter(ends["connected"])), next(iter(ends["accepted"])))
    if mode == "first" and len(ends["connected"]) == 1:
        client = next(iter(ends["connected"]))
        first = {d: min((o["ts"] for o in ops if o["cookie"] == client and o["dir"] == d), default=None)
                 for d in ("send", "recv")}
        report(None not in first.values() and first["recv"] < first["send"],
               f"port {port}: the client read the server's SETTINGS before it sent its preface",
               str(first))
if mode == "h1" or not want_frames:
    report(not frames, "no frame headers recorded", f"{len(frames)} recorded")
stray = [o for o in ops if id(o) not in checked and o["preface"]]
report(not stray, "no other operation has h2_preface", f"{len(stray)} have")
sys.exit(1 if tap.failures else 0)
