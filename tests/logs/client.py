#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load for tests/logs: REQUESTS requests over SESSIONS keep-alive
connections, seeded.  Writes the truth, one JSON line per request answered.

  client.py PORT REQUESTS SESSIONS SEED TRUTH [--host IP] [--mix PATH:N,...]
  client.py PORT REQUESTS SESSIONS SEED TRUTH --host IP --postgres

Without --mix, to front (services.py): GET /req/RID/K with K = 0..3 calls to
back; truth {rid, calls}.  With --mix, to a server of another kind: each
request is one of the PATHs (a format with %d for its RID, in its URL so
that the server's own line names it), drawn from the seed; N is how many
lines the server writes for it; truth {rid, want}.  Any status counts as
answered (a 404 logs too).  With --postgres, to PostgreSQL (autocommit):
each request is a SELECT or an UPDATE of a row, carrying its id in a comment
(as sqlcommenter does) so that its log_statement line names it; truth
{rid, want: 1}.
"""
import http.client
import json
import random
import sys
import threading


def session(host, port, rids, rng, mix, out, lock):
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for rid in rids:
        if mix:
            path, want = rng.choice(mix)
            conn.request("GET", path % rid)
            truth = {"rid": rid, "want": want}
        else:
            k = rng.randint(0, 3)
            conn.request("GET", "/req/%d/%d" % (rid, k))
            truth = {"rid": rid, "calls": k}
        resp = conn.getresponse()
        resp.read()
        if resp.status == 200 or mix:
            with lock:
                out.write(json.dumps(truth) + "\n")
    conn.close()


def pg_session(host, port, rids, rng, mix, out, lock):
    import psycopg2  # Debian's python3-psycopg2, for this mode only

    conn = psycopg2.connect(host=host, port=port, user="vpath", dbname="postgres")
    conn.autocommit = True
    cur = conn.cursor()
    for rid in rids:
        row = rng.randrange(100)
        if rng.random() < 0.5:
            cur.execute("/* rid=%d */ SELECT val FROM items WHERE id = %d" % (rid, row))
            cur.fetchall()
        else:
            cur.execute("/* rid=%d */ UPDATE items SET hits = hits + 1 WHERE id = %d" % (rid, row))
        with lock:
            out.write(json.dumps({"rid": rid, "want": 1}) + "\n")
    conn.close()


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    port, n, sessions, seed, truth = sys.argv[1:6]
    n, sessions = int(n), int(sessions)
    host = option("--host", "127.0.0.1")
    mix = [(p.rsplit(":", 1)[0], int(p.rsplit(":", 1)[1]))
           for p in option("--mix", "").split(",") if p]
    lock = threading.Lock()
    with open(truth, "w") as out:
        threads = []
        for s in range(sessions):
            rids = list(range(1000 + s, 1000 + n, sessions))
            rng = random.Random(int(seed) * 1000 + s)
            t = threading.Thread(target=pg_session if "--postgres" in sys.argv else session,
                                 args=(host, int(port), rids, rng, mix, out, lock))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()


if __name__ == "__main__":
    main()
