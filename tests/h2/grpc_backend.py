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

    python3 grpc_backend.py --listen IP:PORT [--workers N]
"""
import argparse
import json
import signal
import sys
import time
from concurrent import futures

import grpc


def call(request, context):
    # "ipv4:10.204.0.1:40312" (grpcio's peer string)
    port = int(context.peer().rsplit(':', 1)[1])
    work = request.get('w', 0)
    if work:
        time.sleep(work / 1e6)
    return {'port': port, 'pad': 'r' * request.get('r', 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--listen', required=True, metavar='IP:PORT')
    ap.add_argument('--workers', type=int, default=8)
    args = ap.parse_args()
    handler = grpc.method_handlers_generic_handler('vpath.h2.Work', {
        'Call': grpc.unary_unary_rpc_method_handler(
            call, request_deserializer=json.loads,
            response_serializer=lambda r: json.dumps(r).encode()),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=args.workers),
                         handlers=[handler])
    if server.add_insecure_port(args.listen) == 0:
        sys.exit('grpc_backend.py: cannot listen on ' + args.listen)
    server.start()
    print('grpc_backend.py: listening on ' + args.listen, file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: server.stop(0))
    server.wait_for_termination()


if __name__ == '__main__':
    main()
