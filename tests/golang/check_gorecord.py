#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Checks a recording of tests/golang/gorecord.go against the goroutine ids
the program printed (tests/integration/test_record_go.sh).

    check_gorecord.py DUMP TRUTH PID ROUNDS [--none]

DUMP is `vpath-analyze dump` of the recording.  Prints one "ok"/"not ok"
line per check; exits 1 if any failed.  --none: the binary was stripped,
so there must be no goroutine records, and the operations must still be
there.
"""
import sys


def kv(words):
    return dict(w.split("=", 1) for w in words if "=" in w)


def main():
    dump, truth, pid, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    none = "--none" in sys.argv[5:]
    roles = {}
    for line in open(truth):
        f = line.split()
        if len(f) == 2 and f[1].isdigit():
            roles[f[0]] = int(f[1])
    running = {}  # tid -> goid, as the RUN records say
    ops = []  # (goid on the thread or None, cookie, dir)
    go = []
    for line in open(dump):
        f = line.split()
        if not f or f[0] not in ("goroutine", "sock_op"):
            continue
        d = kv(f)
        if d.get("pid") != pid:
            continue
        if f[0] == "goroutine":
            kind = f[4]
            go.append((kind, int(d["goid"]), int(d.get("other", 0))))
            if kind == "run":
                running[d["tid"]] = int(d["goid"])
        else:
            ops.append((running.get(d["tid"]), d["cookie"], "send" if " send " in line else "recv"))
    results = []

    def check(name, cond):
        results.append(cond)
        print(("ok - " if cond else "not ok - ") + name)

    data_ops = [o for o in ops]
    check(f"{len(data_ops)} operations recorded (at least {4 * rounds})", len(data_ops) >= 4 * rounds)
    if none:
        check("no goroutine records", not go)
        return 0 if all(results) else 1
    for role in ("main", "caller", "server"):
        if role not in roles:
            check(f"the program printed the {role} goroutine", False)
            return 1
    caller, server, main_g = roles["caller"], roles["server"], roles["main"]
    # the caller's connection is the cookie of the caller's sends
    by_goid = {}
    for g, cookie, dr in ops:
        by_goid.setdefault(g, set()).add(cookie)
    wrong = [o for o in ops if o[0] not in (caller, server)]
    check(f"every operation has a goroutine, the caller's ({caller}) or the server's ({server}): "
          f"{len(wrong)} wrong", not wrong)
    cc, sc = by_goid.get(caller, set()), by_goid.get(server, set())
    check(f"the caller and the server work on one connection each, not the same "
          f"({len(cc)}, {len(sc)})", len(cc) == 1 and len(sc) == 1 and cc != sc)
    n_caller = sum(1 for o in ops if o[0] == caller)
    n_server = sum(1 for o in ops if o[0] == server)
    check(f"{n_caller} caller and {n_server} server operations (at least {2 * rounds} each)",
          n_caller >= 2 * rounds and n_server >= 2 * rounds)
    check(f"main ({main_g}) created the caller ({caller})", ("new", main_g, caller) in go)
    check(f"the server goroutine ({server}) was created by another",
          any(k == "new" and o == server and g not in (server, 0) for k, g, o in go))
    readies = sum(1 for k, g, o in go if (k, g, o) == ("ready", main_g, caller))
    check(f"main made the caller ready {readies} times (at least {rounds - 1})",
          readies >= rounds - 1)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
