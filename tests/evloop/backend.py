# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Back end of the event-loop workloads: one thread per connection, one JSON
line in, one JSON line out.  Each reply says which call it answers: the
client port of the connection it came on and its 0-based ordinal there, so
the gateway can hand the true identity of every call to its client.

  backend.py --listen IP:PORT

A call is {"w": microseconds of work, "r": reply padding bytes, "pad": ...};
the reply is {"port": P, "ord": K, "pad": "..."} of about r bytes.
"""
import argparse
import json
import socket
import sys
import threading
import time


def serve(conn, peer_port):
    reader = conn.makefile("rb")
    ordinal = 0
    try:
        for line in reader:
            call = json.loads(line)
            if call.get("w"):
                time.sleep(call["w"] / 1e6)
            reply = {"port": peer_port, "ord": ordinal, "pad": "r" * int(call.get("r", 0))}
            conn.sendall(json.dumps(reply).encode() + b"\n")
            ordinal += 1
    except (OSError, ValueError) as e:
        print("backend.py: connection from port %d: %s" % (peer_port, e), file=sys.stderr)
    finally:
        reader.close()
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    args = ap.parse_args()
    host, port = args.listen.rsplit(":", 1)
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((host, int(port)))
    srv.listen(64)
    print("backend.py: listening on %s" % args.listen, file=sys.stderr, flush=True)
    while True:
        conn, peer = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(conn, peer[1]), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
