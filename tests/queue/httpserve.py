# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The HTTP/1.1 servers of tests/queue (web.py, back.py): a thread per
connection (http.server), each answer in one write (headers and body
apart would meet Nagle and a delayed ACK: 40 ms a call)."""
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def serve(listen, answer, banner):
    """Serves GET on listen (ip:port) forever: answer(path, query) gives the
    body (bytes) of a 200."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = -1
        disable_nagle_algorithm = True

        def do_GET(self):
            u = urllib.parse.urlparse(self.path)
            body = answer(u.path, urllib.parse.parse_qs(u.query))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    host, port = listen.rsplit(":", 1)
    srv = ThreadingHTTPServer((host, int(port)), Handler)
    srv.daemon_threads = True
    print(banner, flush=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    threading.Event().wait()


def dumps(obj):
    return json.dumps(obj).encode()
