#!/usr/bin/env python3
"""A last message that arrives together with the sender's FIN.

usage: fin_exchange.py PORT

The client sends 700 bytes and closes at once; the server waits until the FIN
is surely queued, then reads the message and the FIN in one recv().  Prints
"client port=P" so the test can find the connection in the recording.
"""
import socket
import sys
import threading
import time

port = int(sys.argv[1])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", port))
srv.listen()
got = []


def serve():
    conn, _ = srv.accept()
    time.sleep(0.3)
    got.append(len(conn.recv(65536)))
    got.append(len(conn.recv(65536)))
    conn.close()


t = threading.Thread(target=serve)
t.start()
cl = socket.create_connection(("127.0.0.1", port))
print(f"client port={cl.getsockname()[1]}", flush=True)
cl.sendall(b"x" * 700)
cl.close()
t.join()
if got != [700, 0]:
    sys.exit(f"fin_exchange: expected one read of 700 bytes then EOF, got {got}")
