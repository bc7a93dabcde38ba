# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A host's socket operations from `vpath-analyze dump`, placed in their messages (explain.py, rules.py)."""

import re
import subprocess

OP = re.compile(r"^sock_op ts=(\d+) tid=(\d+) .*cookie=(\S+) (send|recv) bytes=(\d+)")
CONN = re.compile(r"^conn .*cookie=(\S+) (\S+) -> (\S+) .*->ESTABLISHED origin=\S+ role=(\w+)")


def operations(analyze, vpr):
    """Yield (ts, tid, op, nbytes, kind, who, ordinal, starts) per operation on a known connection.

    kind is "client" (who: the client's ip:port) for an accepted connection, else "backend"
    (who: the local port); ordinal counts the messages in op's direction on that connection
    from 0; starts is true for a message's first operation.
    """
    dump = subprocess.run([analyze, "dump", vpr], capture_output=True, text=True,
                          check=True).stdout.splitlines()
    conns = {}   # cookie -> (kind, who)
    state = {}   # cookie -> [direction of the current message, messages read, messages sent]
    for line in dump:
        m = CONN.match(line)
        if m:
            cookie, local, remote, role = m.groups()
            conns[cookie] = ("client", remote) if role == "accepted" else \
                ("backend", int(local.rsplit(":", 1)[1]))
            continue
        m = OP.match(line)
        if not m or m.group(3) not in conns:
            continue
        ts, tid, cookie, op, nbytes = m.groups()
        st = state.setdefault(cookie, [None, 0, 0])
        starts = st[0] != op
        if starts:
            st[0] = op
            st[1 if op == "recv" else 2] += 1
        kind, who = conns[cookie]
        yield (int(ts), tid, op, nbytes, kind, who, st[1 if op == "recv" else 2] - 1, starts)
