#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""gRPC back end in Python of the python-grpc workload (README.md here).

Debian's python3-grpcio and no protoc: the service vpath.h2.Work with its
one unary method Call is a generic handler
(grpc.method_handlers_generic_handler), its messages JSON as the Go front
end's codec writes them (tests/h2/gogrpc.go, content-type
application/grpc+json).  The handlers run on a thread pool of --workers
threads (grpcio's C core reads the connection on threads of its own and
hands each call to the pool).

A call {"w": microseconds of work, "r": reply padding bytes, "pad": ...}
is answered with {"port": P, "pad": "..."}: the client port of its
connection, from the call's peer.  grpcio does not show a call's HTTP/2
stream id to Python, so the reply names none; the front end names the
call by the stream id on its side and checks P against the port of its one
connection (README.md here).

With --seq the reply also gives "seq", the call's arrival ordinal on its
connection (0, 1, ...), counted per client port: right where a connection
carries one call at a time, as nginx's grpc_pass upstream connections do
(the next call on it comes only after the last one's reply ended), which
names the proxy's calls in the nginx variants.  With --tls the server
speaks TLS (ALPN h2) with that key and certificate: grpcio does it in the
system's libssl, whose plaintext the recorder reads.

    python3 grpc_backend.py --listen IP:PORT [--workers N] [--seq] [--tls KEY CERT]
"""
import argparse
import collections
import json
import signal
import sys
import threading
import time
from concurrent import futures

import grpc


class Counter:
    """Calls arrived so far per client port."""

    def __init__(self):
        self.lock = threading.Lock()
        self.seen = collections.Counter()

    def next(self, port):
        with self.lock:
            self.seen[port] += 1
            return self.seen[port] - 1


def make_call(counter):
    def call(request, context):
        # "ipv4:10.204.0.1:40312" (grpcio's peer string)
        port = int(context.peer().rsplit(':', 1)[1])
        reply = {'port': port}
        if counter:
            reply['seq'] = counter.next(port)
        work = request.get('w', 0)
        if work:
            time.sleep(work / 1e6)
        reply['pad'] = 'r' * request.get('r', 0)
        return reply
    return call


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--listen', required=True, metavar='IP:PORT')
    ap.add_argument('--workers', type=int, default=8)
    ap.add_argument('--seq', action='store_true')
    ap.add_argument('--tls', nargs=2, metavar=('KEY', 'CERT'))
    args = ap.parse_args()
    handler = grpc.method_handlers_generic_handler('vpath.h2.Work', {
        'Call': grpc.unary_unary_rpc_method_handler(
            make_call(Counter() if args.seq else None), request_deserializer=json.loads,
            response_serializer=lambda r: json.dumps(r).encode()),
    })
    # With --seq (behind nginx): no BDP pings.  nginx closes a kept idle
    # upstream connection that receives anything, grpcio's ping too, by a
    # reset; the port is free at once, the next connect may take it, and
    # the calls counted per port would run on across two connections.
    options = [('grpc.http2.bdp_probe', 0)] if args.seq else []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.workers),
                         handlers=[handler], options=options)
    if args.tls:
        with open(args.tls[0], 'rb') as key, open(args.tls[1], 'rb') as cert:
            creds = grpc.ssl_server_credentials([(key.read(), cert.read())])
        port = server.add_secure_port(args.listen, creds)
    else:
        port = server.add_insecure_port(args.listen)
    if port == 0:
        sys.exit('grpc_backend.py: cannot listen on ' + args.listen)
    server.start()
    print('grpc_backend.py: listening on ' + args.listen, file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()


if __name__ == '__main__':
    main()
