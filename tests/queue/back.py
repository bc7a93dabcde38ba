#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The back end of tests/queue (README.md): an HTTP/1.1 server, a thread per
connection, whose GET /w answers a small body after a little work (the
calls a job makes)."""
import argparse
import hashlib

from httpserve import dumps, serve


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    args = ap.parse_args()

    def answer(path, q):
        return dumps({"digest": hashlib.sha256(repr(q).encode() * 200).hexdigest()})

    serve(args.listen, answer, "back: listening on %s" % args.listen)


if __name__ == "__main__":
    main()
