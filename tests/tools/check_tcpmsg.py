#!/usr/bin/env python3
"""Check a recording (as printed by `vpath-analyze dump`) against what tcpmsg did.

usage: check_tcpmsg.py DUMP CLIENT_LOG SERVER_LOG ROUNDS [options]

CLIENT_LOG/SERVER_LOG are tcpmsg's stdout ("client pid=.. tid=.. lport=.. rport=..").
Prints TAP lines, one per property; NAME prefixes every test name.
Options:
  --name NAME        prefix of the test names
  --fallback         every operation must carry the fallback flag, the header too
  --preexisting      the connection must be known from a preexisting conn record
  --only client|server   the recording holds only that side (another namespace)
  --min-rounds       ROUNDS is a minimum (traffic ran until killed)
"""
import re
import sys

REQ = [1, 100, 1000, 3000]
RESP = [10, 2000, 1, 300]

args = sys.argv[1:]
opts = {"--name": "record", "--only": None}
flags = set()
pos = []
i = 0
while i < len(args):
    a = args[i]
    if a in ("--name", "--only"):
        opts[a] = args[i + 1]
        i += 2
        continue
    if a.startswith("--"):
        flags.add(a)
    else:
        pos.append(a)
    i += 1
dump_path, client_log, server_log, rounds = pos[0], pos[1], pos[2], int(pos[3])
name = opts["--name"]
failures = 0


def report(ok, what, detail=""):
    global failures
    if ok:
        print(f"ok - {name}: {what}")
    else:
        failures += 1
        print(f"not ok - {name}: {what}" + (f" ({detail})" if detail else ""))


def ends(path, who):
    for line in open(path):
        if line.startswith(who + " pid="):
            return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line)}
    sys.exit(f"{path}: no '{who} pid=' line")


def kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


ops, conns, tasks, header = [], [], [], ""
for line in open(dump_path):
    kind = line.split(" ", 1)[0]
    if kind == "header":
        header = line
    elif kind == "sock_op":
        d = kv(line)
        lo, hi = re.search(r"range=\[(\d+),(\d+)\)", line).groups()
        ops.append(dict(ts=int(d["ts"]), tid=int(d["tid"]), pid=int(d["pid"]),
                        cookie=d["cookie"], dir="send" if " send " in line else "recv",
                        bytes=int(d["bytes"]), lo=int(lo), hi=int(hi),
                        fallback=line.rstrip().endswith(" fallback")))
    elif kind == "conn":
        d = kv(line)
        m = re.search(r"(\S+):(\d+) -> (\S+):(\d+)", line)
        d.update(sport=int(m.group(2)), dport=int(m.group(4)), saddr=m.group(1),
                 daddr=m.group(3))
        conns.append(d)
    elif kind == "task":
        d = kv(line)
        d["comm"] = re.search(r'comm="([^"]*)"', line).group(1)
        tasks.append(d)

sides = {}
if opts["--only"] != "server":
    sides["client"] = (ends(client_log, "client"), "connected", REQ, RESP, "tcpmsg-cli")
if opts["--only"] != "client":
    sides["server"] = (ends(server_log, "server"), "accepted", RESP, REQ, "tcpmsg-srv")

if "--fallback" in flags:
    report("fallback," in header, "header says fallback", header.strip())

streams = {}
for side, (me, role, sends, recvs, comm) in sides.items():
    mine = [c for c in conns if c["sport"] == me["lport"] and c["dport"] == me["rport"]]
    if "--preexisting" in flags:
        est = [c for c in mine if c["origin"] == "preexisting"]
        report(len(est) >= 1 and all(c["role"] == role for c in est),
               f"{side} end known as a preexisting {role} connection",
               f"{len(est)} records, roles {[c['role'] for c in est]}")
    else:
        est = [c for c in mine if c["origin"] == "state" and c["role"] == role]
        report(len(est) == 1, f"{side} end has one {role} ESTABLISHED record",
               f"{len(est)} found for ports {me['lport']}->{me['rport']}")
    if not est:
        continue
    cookie = est[0]["cookie"]
    my_ops = sorted((o for o in ops if o["cookie"] == cookie), key=lambda o: o["ts"])
    report(my_ops and all(o["tid"] == me["tid"] and o["pid"] == me["pid"] for o in my_ops),
           f"{side} operations carry tid {me['tid']} and pid {me['pid']}",
           f"{len(my_ops)} ops, tids {sorted({o['tid'] for o in my_ops})}")
    if "--fallback" in flags:
        report(my_ops and all(o["fallback"] for o in my_ops), f"{side} operations are fallback")
    snd = [o for o in my_ops if o["dir"] == "send"]
    rcv = [o for o in my_ops if o["dir"] == "recv"]
    want_sends = [sends[r % 4] for r in range(len(snd) if "--min-rounds" in flags else rounds)]
    report(len(snd) >= rounds and [o["bytes"] for o in snd] == want_sends,
           f"{side} sends are one per round with the right sizes",
           f"got {[o['bytes'] for o in snd][:12]}")
    n_rounds = len(snd)
    want_recv = sum(recvs[r % 4] for r in range(n_rounds))
    got_recv = sum(o["bytes"] for o in rcv)
    # With --min-rounds the last reply may still be in flight.
    ok_recv = got_recv == want_recv or ("--min-rounds" in flags and
                                        want_recv - recvs[(n_rounds - 1) % 4] <= got_recv
                                        <= want_recv)
    report(ok_recv, f"{side} received bytes add up", f"got {got_recv}, want {want_recv}")
    for o in my_ops:
        if (o["hi"] - o["lo"]) % 2**32 != o["bytes"]:
            report(False, f"{side} range length equals bytes", str(o))
            break

    def contiguous(lst):
        return all(a["hi"] == b["lo"] for a, b in zip(lst, lst[1:]))

    report(contiguous(snd) and contiguous(rcv), f"{side} stream ranges are contiguous")
    streams[side] = ([(o["lo"], o["hi"]) for o in snd], [(o["lo"], o["hi"]) for o in rcv])
    names = [t["comm"] for t in tasks if int(t["tid"]) == me["tid"]]
    report(names and names[-1] == comm, f"{side} thread is named {comm}",
           f"names seen {names[-3:]}")

if "client" in streams and "server" in streams:
    csend, crecv = streams["client"]
    ssend, srecv = streams["server"]

    def covered(ranges):
        return (ranges[0][0], ranges[-1][1]) if ranges else None

    def same_bytes(sends, recvs):
        """Sends are whole messages; a receive may take part of one: both
        cover the same span, and every receive lies inside one send.
        Positions are taken relative to the first send (they wrap at 2^32)."""
        if not sends:
            return False
        base = sends[0][0]

        def rel(ranges):
            return [((lo - base) % 2**32, (lo - base) % 2**32 + (hi - lo) % 2**32)
                    for lo, hi in ranges]

        sends, recvs = rel(sends), rel(recvs)
        return bool(sends) and covered(sends) == covered(recvs) and all(
            any(lo <= a and b <= hi for lo, hi in sends) for a, b in recvs)

    report(same_bytes(csend, srecv), "client send ranges equal server receive ranges",
           f"{covered(csend)} vs {covered(srecv)}")
    report(same_bytes(ssend, crecv), "server send ranges equal client receive ranges",
           f"{covered(ssend)} vs {covered(crecv)}")

sys.exit(1 if failures else 0)
