# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""HTTP back end of the HTTP event-loop workload (gateway_http.js): one
thread per keep-alive connection (http.server).  POST /call with the body
{"w": microseconds of work, "r": reply padding bytes, "pad": ...}; the reply
{"port": P, "ord": K, "pad": "..."} names the call as backend.py does: the
client port of its connection and its 0-based ordinal there.

  backend_http.py --listen IP:PORT
"""
import argparse
import http.server
import json
import sys
import time

from httpjson import JsonHandler


class Handler(JsonHandler):
    def setup(self):
        super().setup()
        self.ordinal = 0  # one handler per connection

    def do_POST(self):
        call = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if call.get("w"):
            time.sleep(call["w"] / 1e6)
        reply = {"port": self.client_address[1], "ord": self.ordinal,
                 "pad": "r" * int(call.get("r", 0))}
        self.ordinal += 1
        self.send_json(reply)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    args = ap.parse_args()
    host, port = args.listen.rsplit(":", 1)
    http.server.ThreadingHTTPServer.daemon_threads = True
    srv = http.server.ThreadingHTTPServer((host, int(port)), Handler)
    print("backend_http.py: listening on %s" % args.listen, file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
