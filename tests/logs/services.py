#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The two threaded services of tests/logs (issue 26), each logging through
Python's logging module to its own file.

  services.py back  LOGFILE PORTFILE
  services.py front LOGFILE PORTFILE BACKPORT

front: GET /req/RID/K logs "start rid=RID", makes K calls GET /call/RID/J to
back (one connection each), logs "end rid=RID", replies.  back: logs
"call rid=RID j=J", replies.  VPATH_LOGS_END_SUFFIX in the environment is
appended to each "end" line.  Both are thread-per-connection servers
(ThreadingHTTPServer; front keeps client connections alive) and run a
housekeeping thread that logs a line every 5 ms for no request.  Each binds
an ephemeral loopback port and writes it to PORTFILE when it is listening.
"""
import http.client
import http.server
import logging
import os
import random
import sys
import threading
import time

# Appended to each "end" line (tests/integration/test_report_logs.sh: text a
# report must show as text, never run).
END_SUFFIX = os.environ.get("VPATH_LOGS_END_SUFFIX", "")


def housekeeping(log, stop):
    n = 0
    while not stop.is_set():
        n += 1
        log.info("housekeeping tick %d", n)
        time.sleep(0.005)


class Back(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        _, _, rid, j = self.path.split("/")
        self.server.log.info("call rid=%s j=%s", rid, j)
        time.sleep(random.random() * 0.002)
        body = b"ok %s %s\n" % (rid.encode(), j.encode())
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Front(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        _, _, rid, k = self.path.split("/")
        log = self.server.log
        log.info("start rid=%s calls=%s", rid, k)
        for j in range(int(k)):
            conn = http.client.HTTPConnection("127.0.0.1", self.server.back_port, timeout=10)
            conn.request("GET", "/call/%s/%d" % (rid, j))
            conn.getresponse().read()
            conn.close()
        log.info("end rid=%s%s", rid, END_SUFFIX)
        body = b"done %s\n" % rid.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    role, logfile, portfile = sys.argv[1:4]
    handler = logging.FileHandler(logfile)
    handler.setFormatter(logging.Formatter("%(asctime)s %(threadName)s %(levelname)s %(message)s"))
    log = logging.getLogger(role)
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Back if role == "back" else Front)
    server.daemon_threads = True
    server.log = log
    if role == "front":
        server.back_port = int(sys.argv[4])
    stop = threading.Event()
    threading.Thread(target=housekeeping, args=(log, stop), daemon=True, name="housekeeping").start()
    tmp = portfile + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, portfile)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    stop.set()


if __name__ == "__main__":
    main()
