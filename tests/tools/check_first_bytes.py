#!/usr/bin/env python3
"""Check the stream-start and TLS flags of a recording against what was done.

usage: check_first_bytes.py DUMP EXPECT NAME

DUMP is `vpath-analyze dump` output, EXPECT the "conn client_port=..." lines
of first_bytes_exchange.py.  For every connection, end and direction the
first operation must carry stream_start (and tls_hs when expected); no later
one stream_start; a later one tls_hs exactly when it begins at an offset the
exchange named (early_c2s / early_s2c: within the first 4 KiB, where the
recorder looks), never past 4 KiB.  Prints TAP lines prefixed with NAME.
"""
import re
import sys

from dumplines import Tap, read_dump

dump_path, expect_path, name = sys.argv[1:4]
tap = Tap(name)
report = tap.report
ops, conns, _ = read_dump(dump_path)

expected = [dict(re.findall(r"(\w+)=(\S+)", l)) for l in open(expect_path) if l.startswith("conn ")]
report(len(expected) > 0, "the exchange reported its connections")
checked = set()
for e in expected:
    port = int(e["client_port"])
    ends = {"client": [c["cookie"] for c in conns if c["role"] == "connected" and c["sport"] == port],
            "server": [c["cookie"] for c in conns if c["role"] == "accepted" and c["dport"] == port]}
    for end, cookies in ends.items():
        if len(set(cookies)) != 1:
            report(False, f"port {port}: one {end} socket recorded", f"cookies {cookies}")
            continue
        for direction in ("send", "recv"):
            want = e[f"{end}_{direction}"]
            mine = sorted((o for o in ops if o["cookie"] == cookies[0] and o["dir"] == direction),
                          key=lambda o: o["ts"])
            checked.update(id(o) for o in mine)
            what = f"port {port}: {end} {direction}"
            if want == "none":
                report(not mine, f"{what}: no data", f"{len(mine)} ops")
                continue
            if not mine:
                report(False, f"{what}: recorded")
                continue
            first, rest = mine[0], mine[1:]
            report(first["start"], f"{what}: first op ({first['bytes']} bytes) is the stream start")
            report(first["tls"] == (want == "tls"),
                   f"{what}: first op {'is' if want == 'tls' else 'is not'} a TLS handshake")
            c2s = (end == "client") == (direction == "send")
            early = {int(x) for x in e.get("early_c2s" if c2s else "early_s2c", "").split(",") if x}
            offset, wrong, seen = first["bytes"], [], set()
            for o in rest:
                want_tls = offset in early and offset < 4096
                if o["start"] or o["tls"] != want_tls:
                    wrong.append(f"{o['bytes']}@{offset}")
                if o["tls"]:
                    seen.add(offset)
                offset += o["bytes"]
            report(not wrong, f"{what}: later ops marked only where a handshake header begins "
                   f"in the first 4 KiB ({len(rest)} later, offset {offset})",
                   f"wrong: {wrong}")
            report(seen == early, f"{what}: the early handshake headers marked ({sorted(early)})",
                   f"marked at {sorted(seen)}")
stray = [o for o in ops if id(o) not in checked and (o["start"] or o["tls"])]
report(not stray, "no other operation marked", f"{len(stray)} marked")
sys.exit(1 if tap.failures else 0)
