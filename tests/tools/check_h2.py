#!/usr/bin/env python3
"""Check a recording's HTTP/2 marks against an exchange of tests/tools/h2c_exchange.js.

usage: check_h2.py DUMP EXPECT NAME MODE

DUMP is `vpath-analyze dump` output, EXPECT the "conn client_port=N" lines of
the exchange, MODE h2 or h1.  For h2: the client's first send and the
server's first receive carry h2_preface, no other operation does.  For h1:
no operation carries it.  Prints TAP lines prefixed with NAME.
"""
import sys

from dumplines import Tap, fields, read_dump

dump_path, expect_path, name, mode = sys.argv[1:5]
tap = Tap(name)
report = tap.report
ops, conns, others = read_dump(dump_path)

ports = [int(fields(l)["client_port"]) for l in open(expect_path)
         if l.startswith("conn ")]
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
            want_first = mode == "h2" and c2s
            report(mine[0]["preface"] == want_first,
                   f"{what}: first op {'has' if want_first else 'has not'} h2_preface")
            report(not any(o["preface"] for o in mine[1:]), f"{what}: no later op has h2_preface")
stray = [o for o in ops if id(o) not in checked and o["preface"]]
report(not stray, "no other operation has h2_preface", f"{len(stray)} have")
sys.exit(1 if tap.failures else 0)
