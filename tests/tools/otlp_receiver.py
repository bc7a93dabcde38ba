#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""A stand-in OTLP/HTTP receiver for tests, on 127.0.0.1 only.

otlp_receiver.py --dir DIR [--refuse CODE] [--refuse-first N]
Writes its port to DIR/port, then serves until killed.  POST /v1/traces
with Content-Type application/json is stored as DIR/body-NNN.json and
answered 200 with an empty ExportTraceServiceResponse; every request is
logged in DIR/requests (one line: path, content type, answer).  With
--refuse CODE it answers CODE (a google.rpc.Status JSON body) to every
request, or only to the first N with --refuse-first N.
"""
import argparse
import http.server
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--refuse", type=int, default=0)
ap.add_argument("--refuse-first", type=int, default=-1)
args = ap.parse_args()
seen = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        global seen
        seen += 1
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        ctype = self.headers.get("Content-Type", "")
        refuse = args.refuse and (args.refuse_first < 0 or seen <= args.refuse_first)
        if self.path != "/v1/traces":
            code, reply = 404, {"code": 5, "message": "no such path " + self.path}
        elif refuse:
            code, reply = args.refuse, {"code": 14, "message": "test receiver refuses this one"}
        elif ctype != "application/json":
            code, reply = 415, {"code": 3, "message": "not JSON: " + ctype}
        else:
            code, reply = 200, {}
            with open(os.path.join(args.dir, "body-%03d.json" % seen), "wb") as f:
                f.write(body)
        with open(os.path.join(args.dir, "requests"), "a") as f:
            f.write("%s %s %d\n" % (self.path, ctype, code))
        out = json.dumps(reply).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(os.path.join(args.dir, "port.tmp"), "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
srv.serve_forever()
