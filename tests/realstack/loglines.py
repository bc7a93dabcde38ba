#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The log lines vpath-analyze attached to the real servers' requests
(run.sh --logs N, issue 26), against the request ids the lines name.

  loglines.py --dir DIR [--label TEXT]

DIR holds client.jsonl (each request's client connection, ordinal on it and
nginx's request id) and found.json.  A found request's own id is the one the
client got for its root's connection and ordinal.  Two kinds of line name a
request id: nginx's access log (the truth format: address, ordinal, id,
status) and PostgreSQL's statement log (the app tags each query with
/* rid=ID */).  Prints the figures and one TAP line: lines were attached, and
no line marked exact names another request than the one it is on.
"""
import argparse
import json
import os
import re
import sys

ACCESS = re.compile(r"^\S+:\d+ \d+ ([0-9a-f]{32}) \d{3} ")
STATEMENT = re.compile(r"/\* rid=(\w+) \*/")


def lines_of(call, out):
    out.extend(call.get("logs", []))
    for c in call.get("calls", []):
        lines_of(c, out)
    return out


def named_id(text):
    m = ACCESS.search(text) or STATEMENT.search(text)
    if not m:
        return None, "other"
    return m.group(1), "nginx access" if m.re is ACCESS else "postgres statement"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--label", default="realstack:")
    args = ap.parse_args()
    rid_of = {}
    with open(os.path.join(args.dir, "client.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if not r.get("warmup") and r.get("status") == 200:
                rid_of[(r["client"], r["conn_index"])] = r["rid"]
    with open(os.path.join(args.dir, "found.json")) as f:
        found = json.load(f)["requests"]
    total = exact = naming = exact_naming = wrong = own_req = inferred_other = 0
    kinds = {}
    for r in found:
        root = r["root"]
        rid = rid_of.get((root["client"]["addr"], root["conn_index"]))
        lines = lines_of(root, [])
        ids = set()
        for line in lines:
            total += 1
            exact += line["exact"]
            named, kind = named_id(line["text"])
            kinds[kind] = kinds.get(kind, 0) + 1
            if named is None:
                continue
            naming += 1
            ids.add(named)
            inferred_other += not line["exact"] and named != rid
            if line["exact"]:
                exact_naming += 1
                if named != rid:
                    wrong += 1
                    if wrong <= 5:
                        print("# exact line on request %s names %s: %s" % (rid, named, line["text"][:160]))
        own_req += bool(ids) and ids == {rid}
    print("# %s %d log lines on %d requests (%d exact): %s; %d name a request id (%d exact), "
          "%d inferred name another request; %d requests carry lines naming only their own id" %
          (args.label, total, len(found), exact, ", ".join("%s %d" % kv for kv in sorted(kinds.items())),
           naming, exact_naming, inferred_other, own_req))
    ok = total > 0 and wrong == 0
    print("%s - %s log lines attached (%d), none marked exact on another request than the one it names "
          "(%d wrong)" % ("ok" if ok else "not ok", args.label, total, wrong))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
