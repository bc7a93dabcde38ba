#!/usr/bin/env python3
"""Known traffic for test_record_capture.sh: one message per connection each way.

usage: capture_exchange.py serve PORT_A PORT_B READY_FILE   (until killed)
       capture_exchange.py client PORT_A PORT_B

The client sends every message of MESSAGES_A to PORT_A and MESSAGES_B to
PORT_B, each on its own connection with one send; the server answers each
with REPLY.  check_capture.py imports the messages and the secrets.
"""
import socket
import struct
import sys
import threading

SECRETS = [b"SECRET-TOKEN-1", b"SECRET-COOKIE-2", b"SECRET-REDIS-3", b"SECRET-REDIS-4",
           b"SECRET-PG-5", b"SECRET-USER-6"]
PG_PASSWORD = b"SECRET-PG-5\0"
MESSAGES_A = [
    b"GET /login/4711 HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer SECRET-TOKEN-1\r\n"
    b"Cookie: sid=SECRET-COOKIE-2\r\nAccept: */*\r\n\r\n",
    b"*2\r\n$4\r\nAUTH\r\n$14\r\nSECRET-REDIS-3\r\n",
    b"AUTH SECRET-USER-6 SECRET-REDIS-4\r\n",
    b"p" + struct.pack(">I", 4 + len(PG_PASSWORD)) + PG_PASSWORD,
    b"hello capture, nothing secret here\n",
    bytes((i * 7 + 3) % 251 for i in range(600)),
]
MESSAGES_B = [b"on the other port: never captured\n"]
REPLY = b"REPLY ok, also plain\n"


def serve(port_a, port_b, ready):
    listeners = []
    for port in (port_a, port_b):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(16)
        listeners.append(s)

    def loop(s):
        while True:
            c, _ = s.accept()
            while c.recv(65536):
                c.sendall(REPLY)
            c.close()

    for s in listeners:
        threading.Thread(target=loop, args=(s,), daemon=True).start()
    open(ready, "w").close()
    threading.Event().wait()


def client(port_a, port_b):
    for port, messages in ((port_a, MESSAGES_A), (port_b, MESSAGES_B)):
        for m in messages:
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(m)
            got = b""
            while len(got) < len(REPLY):
                got += c.recv(4096)
            c.close()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        client(int(sys.argv[2]), int(sys.argv[3]))
