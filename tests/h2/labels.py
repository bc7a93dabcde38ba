#!/usr/bin/env python3
"""The HTTP/2 calls' labels (issue 23, HPACK): of the calls a run's
found.json has to the back end (h2.json's backend_addr; with --hop, to the
server behind it, hop_addr: nginx's calls over TLS), how many carry a
witness read from their HEADERS: protocol http, a method, a path and a
status (and, for gRPC, a grpc-status).  Prints a TAP line; fails under
--min percent.

    tests/h2/labels.py DIR LABEL [--min 99] [--grpc] [--hop]"""
import argparse
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("label")
ap.add_argument("--min", type=float, default=99.0)
ap.add_argument("--grpc", action="store_true")
ap.add_argument("--found", default="found.json")
ap.add_argument("--hop", action="store_true")
args = ap.parse_args()
backend = json.load(open(os.path.join(args.dir, "h2.json")))[
    "hop_addr" if args.hop else "backend_addr"]
found = json.load(open(os.path.join(args.dir, args.found)))
calls = labelled = 0


def walk(c):
    global calls, labelled
    if c.get("server", {}).get("addr") == backend:
        calls += 1
        w = c.get("witness") or {}
        ok = (w.get("protocol") == "http" and w.get("method") and w.get("target")
              and w.get("status", 0) >= 100)
        if args.grpc:
            ok = ok and "grpc_status" in w
        labelled += bool(ok)
    for k in c.get("calls", []):
        walk(k)


for r in found["requests"]:
    walk(r["root"])
pct = 100.0 * labelled / calls if calls else 0.0
ok = calls > 0 and pct >= args.min
print("%s - %s: %d of %d %s calls labelled from their HEADERS (%.1f%%, gate %g%%)"
      % ("ok" if ok else "not ok", args.label, labelled, calls,
         "hop" if args.hop else "back-end", pct, args.min))
