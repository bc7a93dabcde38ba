# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Why a path of an event-loop run (run.sh --keep DIR) came out wrong, at the
level of records: the gateway's socket operations from the moment request ID
was read until its reply was sent, in order, each labelled with the message
it belongs to and the request that message truly serves, and for each call
sent, the request the analyzer put it under.

  explain.py --dir DIR --id N [--analyze PATH-TO-vpath-analyze]
             [--meta evloop.json] [--host gateway]

Reads DIR/HOST.vpr (through `vpath-analyze dump`), truth.jsonl,
found.json and META (tests/handoff: --meta handoff.json --host front).
"""
import argparse
import json
import os
import sys

import gwops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--id", type=int, required=True)
    ap.add_argument("--meta", default="evloop.json", help="tests/handoff: handoff.json")
    ap.add_argument("--host", default="gateway", help="the gateway's host (tests/handoff: front)")
    ap.add_argument("--analyze", default=os.path.join(os.environ.get("OUTPUT", ".output"),
                                                      "vpath-analyze"))
    args = ap.parse_args()
    d = args.dir
    meta = json.load(open(os.path.join(d, args.meta)))
    truth = [json.loads(line) for line in open(os.path.join(d, "truth.jsonl"))]
    request_of = {(t["client"], t["conn_index"]): t["id"] for t in truth}
    call_owner = {tuple(c): t["id"] for t in truth for c in t["calls"]}
    found = json.load(open(os.path.join(d, "found.json")))
    found_parent = {}
    for req in found["requests"]:
        root = req["root"]
        if root["server"]["addr"] != meta["gateway_addr"]:
            continue
        rid = request_of.get((root["client"]["addr"], root["conn_index"]))
        for call in root["calls"]:
            cid = (int(call["client"]["addr"].rsplit(":", 1)[1]), call["conn_index"])
            link = call.get("link") or {}
            found_parent[cid] = "%s (%s%s)" % (rid, link.get("basis", "?"),
                                               ", exact" if link.get("exact") else "")

    events = []  # (ts, tid, text, request id the message serves, call id of a call sent)
    for ts, tid, op, nbytes, kind, who, k, _ in gwops.operations(
            args.analyze, os.path.join(d, args.host + ".vpr")):
        if kind == "client":
            rid = request_of.get((who, k))
            what = "%s %s client %s request %d" % (op, nbytes.rjust(5), who,
                                                    k) + (" (its reply)" if op == "send" else "")
            events.append((ts, tid, what, rid, None))
        else:
            cid = (who, k)
            rid = call_owner.get(cid)
            what = "%s %s back end %d call %d%s" % (op, nbytes.rjust(5), who, k,
                                                    " (its reply)" if op == "recv" else "")
            events.append((ts, tid, what, rid, cid if op == "send" else None))

    mine = [i for i, e in enumerate(events) if e[3] == args.id and "client" in e[2]]
    if not mine:
        sys.exit("explain.py: request %d is not on the gateway's records" % args.id)
    first, last = mine[0], mine[-1]
    t0 = events[first][0]
    t = next(x for x in truth if x["id"] == args.id)
    print("request %d: client %s ordinal %d, true calls %s" % (args.id, t["client"],
                                                               t["conn_index"], t["calls"]))
    print("found under it: %s" % sorted(c for c, p in found_parent.items()
                                        if p.split()[0] == str(args.id)))
    last_input = None
    for ts, tid, what, rid, cid in events[first:last + 1]:
        note = ""
        if cid is not None:
            note = "  <- analyzer: under #%s; last input was for #%s" % (
                found_parent.get(cid, "root/none"), last_input)
        if what.startswith("recv"):
            last_input = rid
        mark = "*" if rid == args.id else " "
        print("%s %+10.1fus tid %s %-52s serves #%s%s" % (mark, (ts - t0) / 1e3, tid, what,
                                                          rid, note))


if __name__ == "__main__":
    main()
