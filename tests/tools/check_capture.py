#!/usr/bin/env python3
"""Check a recording's payload records against capture_exchange.py's traffic.

usage: check_capture.py FILE N PORT_A PORT_B PID NAME

Reads FILE (docs/format.md) itself, through vprfile.py.  N is --capture N; PID, when not 0, the
only process whose operations may have payloads.  Prints TAP lines prefixed
with NAME: payloads only on PORT_A (and PID), both directions at both ends,
each plain payload the first min(N, bytes) bytes of a message or reply, each
redacted one equal to one with only '*' put in, no secret in any byte of the
file, the URL and command names kept.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from capture_exchange import MESSAGES_A, MESSAGES_B, REPLY, SECRETS  # noqa: E402
from vprfile import header_flags, records  # noqa: E402

path, n, port_a, port_b, pid, name = sys.argv[1:7]
n, port_a, port_b, pid = int(n), int(port_a), int(port_b), int(pid)
failures = 0


def report(ok, what):
    global failures
    failures += 0 if ok else 1
    print(("ok" if ok else "not ok") + f" - {name}: {what}")


raw = open(path, "rb").read()
flags = header_flags(raw)
conns, payloads = {}, []
for rtype, rec in records(path):
    if rtype == 2:
        cookie = struct.unpack_from("<Q", rec, 16)[0]
        sport, dport = struct.unpack_from("<HH", rec, 40)
        # The latest record with ports: a socket's first may come before it has them.
        if sport and dport:
            conns[cookie] = (sport, dport)
    elif rtype == 7:
        cookie, ppid, seq_end, nbytes, plen, pdir, pflags = struct.unpack_from("<QIIIHBB", rec, 16)
        payloads.append(dict(cookie=cookie, pid=ppid, bytes=nbytes, len=plen, dir=pdir,
                             flags=pflags, data=rec[40:40 + plen]))

report(flags & 0x4, f"the file is flagged VPR_FILE_PAYLOAD (flags 0x{flags:x})")
report(len(payloads) > 0, f"{len(payloads)} payload records")
# Socket cookies of the accepted end may have no connection record of their own: known ones are checked.
ports = [conns[p["cookie"]] for p in payloads if p["cookie"] in conns]
if not pid:
    report(ports and all(port_a in c for c in ports),
           f"every payload on a known connection is on port {port_a} ({len(ports)} known)")
    report(not any(port_b in c for c in ports), f"none on port {port_b}")
else:
    report(all(p["pid"] == pid for p in payloads), f"every payload is of process {pid}")
# The client sends messages and receives replies, the server the other way round.
kinds = {(p["data"] == REPLY[:p["len"]], p["dir"]) for p in payloads if not p["flags"] & 1}
want_kinds = {(False, 1), (True, 0)} if pid else {(False, 0), (False, 1), (True, 0), (True, 1)}
report(kinds == want_kinds, f"sends and receives at {'the server' if pid else 'both ends'} "
       f"have payloads ({sorted(kinds)})")
report(all(p["len"] == min(n, p["bytes"]) for p in payloads),
       f"every payload holds min({n}, bytes) bytes")

wanted = MESSAGES_A + [REPLY] + (MESSAGES_B if pid else [])
plain = [p for p in payloads if not p["flags"] & 1]
bad = [p["data"][:40] for p in plain
       if not any(p["bytes"] == len(m) and p["data"] == m[:p["len"]] for m in wanted)]
report(plain and not bad, f"{len(plain)} plain payloads are the first bytes of what was sent "
       f"({len(bad)} are not: {bad[:2]})")


def masked_from(data, m):
    return len(m) >= len(data) and all(a == b or a == ord("*") for a, b in zip(data, m))


redacted = [p for p in payloads if p["flags"] & 1]
report(all(any(masked_from(p["data"], m) for m in wanted) for p in redacted),
       f"{len(redacted)} redacted payloads differ from what was sent only by '*'")
# The four secret-bearing messages, each seen by both ends.
report(len(redacted) >= (4 if pid else 8),
       f"the four secret-bearing messages are redacted at each end ({len(redacted)})")
leaks = [s for s in SECRETS if s in raw]
report(not leaks, f"no secret in any byte of the file (found {leaks})")
alldata = b"".join(p["data"] for p in redacted)
report(b"GET /login/4711 HTTP/1.1" in alldata and b"$4\r\nAUTH\r\n" in alldata and
       b"AUTH " in alldata, "the URL and the Redis command name stay")
if not pid:
    report(MESSAGES_B[0][:20] not in raw, "the other port's message is nowhere in the file")
sys.exit(1 if failures else 0)
