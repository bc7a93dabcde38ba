#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Load for tests/logs/servers.sh postgres: REQUESTS statements over
SESSIONS connections (autocommit), each a SELECT or an UPDATE of a row drawn
from the seed, carrying its id in a comment (as sqlcommenter does), so that
the server's log_statement line names it.  Writes the truth, one JSON line
per statement answered: {rid, want: 1}.

  pgclient.py HOST REQUESTS SESSIONS SEED TRUTH
"""
import json
import random
import sys
import threading

import psycopg2


def session(host, rids, rng, out, lock):
    conn = psycopg2.connect(host=host, port=5432, user="vpath", dbname="postgres")
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


def main():
    host, n, sessions, seed, truth = sys.argv[1:6]
    n, sessions = int(n), int(sessions)
    lock = threading.Lock()
    with open(truth, "w") as out:
        threads = []
        for s in range(sessions):
            rids = list(range(1000 + s, 1000 + n, sessions))
            rng = random.Random(int(seed) * 1000 + s)
            t = threading.Thread(target=session, args=(host, rids, rng, out, lock))
            t.start()
            threads.append(t)
        for t in threads:
            t.join()


if __name__ == "__main__":
    main()
