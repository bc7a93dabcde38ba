# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""What the workloads' HTTP/1.1 servers share (backend_http.py, tests/handoff/frontend_http_pool.py)."""
import http.server
import json
import socket


class JsonHandler(http.server.BaseHTTPRequestHandler):
    """Keep-alive, Nagle off (a reply is one write, as the truth expects), no access log."""
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_json(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass
