#!/usr/bin/env python3
"""Loopback exchanges for the recorder's edge cases.

usage: edge_exchange.py fin PORT
       edge_exchange.py sendfile PORT SIZE

fin: the client sends 700 bytes and closes at once; the server waits until
the FIN is surely queued, then reads the message and the FIN in one recv().

sendfile: the client sends a SIZE-byte file with os.sendfile and closes; the
server reads until EOF.

Both print "client port=P" so the test can find the connection in the
recording, and exit non-zero if the server did not get what was sent.
"""
import os
import socket
import sys
import tempfile
import threading
import time


def serve_fin(conn, got):
    time.sleep(0.3)
    got.append(len(conn.recv(65536)))
    got.append(len(conn.recv(65536)))


def serve_until_eof(conn, got):
    n = 0
    while chunk := conn.recv(1 << 20):
        n += len(chunk)
    got.append(n)


def send_fin(cl):
    cl.sendall(b"x" * 700)


def send_file(cl, size):
    with tempfile.TemporaryFile() as f:
        f.write(os.urandom(size))
        f.flush()
        sent = 0
        while sent < size:
            sent += os.sendfile(cl.fileno(), f.fileno(), sent, size - sent)


def run(port, serve, send):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen()
    got = []

    def server():
        conn, _ = srv.accept()
        serve(conn, got)
        conn.close()

    t = threading.Thread(target=server)
    t.start()
    cl = socket.create_connection(("127.0.0.1", port))
    print(f"client port={cl.getsockname()[1]}", flush=True)
    send(cl)
    cl.close()
    t.join()
    return got


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "fin":
        got, want = run(port, serve_fin, send_fin), [700, 0]
    elif mode == "sendfile":
        size = int(sys.argv[3])
        got, want = run(port, serve_until_eof, lambda cl: send_file(cl, size)), [size]
    else:
        sys.exit(f"edge_exchange: unknown case '{mode}'")
    if got != want:
        sys.exit(f"edge_exchange {mode}: the server expected {want}, got {got}")


main()
