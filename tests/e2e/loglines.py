#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The log lines of an end-to-end run recorded with --logs (run.sh
--record-arg --logs ...; issue 26): how many the recorders recorded and how
many vpath-analyze attached to requests, from a kept run directory.

  loglines.py DIR [--label TEXT]

A line that names its call (vapp server --log-visits: "visit CLIENT#ORDINAL",
the client's address and the ordinal of the request on that connection, the
truth's own key of a call) is checked: one marked exact must be on that
call.  Prints the figures and one TAP line: such lines were attached, and
none marked exact is on another call.
"""
import argparse
import glob
import json
import os
import re
import sys

VISIT = re.compile(r"\bvisit (\S+)#(\d+)\b")
WRITES = re.compile(r"(\d+) log writes recorded")


def walk(call, out):
    for line in call.get("logs", []):
        out.append((call, line))
    for c in call.get("calls", []):
        walk(c, out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    writes = 0
    for path in glob.glob(os.path.join(args.dir, "*.record.log")):
        with open(path) as f:
            m = WRITES.search(f.read())
            writes += int(m.group(1)) if m else 0
    with open(os.path.join(args.dir, "found.json")) as f:
        found = json.load(f)["requests"]
    total = exact = naming = wrong = own = 0
    for r in found:
        for call, line in walk(r["root"], []):
            total += 1
            exact += line["exact"]
            m = VISIT.search(line["text"])
            if not m:
                continue
            naming += 1
            mine = (m.group(1), int(m.group(2))) == (call["client"]["addr"], call["conn_index"])
            own += mine
            if line["exact"] and not mine:
                wrong += 1
                if wrong <= 5:
                    print("# exact line on %s#%d: %s" % (call["client"]["addr"], call["conn_index"], line["text"]))
    print("# %s %d log writes recorded; %d lines on %d requests (%d exact); %d name a call, "
          "%d of them on it" % (args.label, writes, total, len(found), exact, naming, own))
    ok = wrong == 0 and naming > 0
    print("%s - %s visit lines on calls (%d), none marked exact on another call than the one "
          "it names (%d wrong)" % ("ok" if ok else "not ok", args.label, naming, wrong))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
