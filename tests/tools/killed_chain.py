#!/usr/bin/env python3
"""A client, a front end and a back end on loopback, for test_fault_killed_reply.sh.

usage: killed_chain.py back PORT READY | front PORT BACK_PORT READY | client PORT COUNT LAST

The back end answers each request: in one piece when its first byte is 'w'
(whole); in one piece and then resetting the connection (SO_LINGER 0) when
it is 'k'; else with a first part and then nothing, holding the connection
open until it is killed.  The front end answers each request in two parts
around one call on its kept-alive back-end connection: part 1, the call,
part 2 once the call's reply is whole; when the back end's connection
ends first, or the call cannot be sent on it, it closes the client's
connection without part 2.  The client sends COUNT requests, 'w' ones and
then LAST ('c': one the kill cuts; 'r': a 'k' and then a 'w', whose call
the reset connection refuses), and says how each ended.
"""
import socket
import struct
import sys
import time

PART = b"p" * 100
WHOLE = b"W" * 300


def listen(port, ready):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", int(port)))
    s.listen()
    open(ready, "w").close()
    return s


def back(port, ready):
    conn, _ = listen(port, ready).accept()
    while True:
        req = conn.recv(100)
        if not req:
            return
        if req[:1] == b"w":
            conn.sendall(WHOLE)
        elif req[:1] == b"k":
            conn.sendall(WHOLE)
            time.sleep(0.1)  # the front end has read the reply: the reset loses nothing
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()
            time.sleep(3600)
        else:
            conn.sendall(PART)
            time.sleep(3600)


def front(port, back_port, ready):
    lst = listen(port, ready)
    up = socket.create_connection(("127.0.0.1", int(back_port)))
    conn, _ = lst.accept()
    while True:
        req = conn.recv(100)
        if not req:
            return
        conn.sendall(PART)
        try:
            up.sendall(req)
        except OSError:  # reset: EPIPE or ECONNRESET, nothing of the call left
            conn.close()
            return
        got = 0
        while got < len(WHOLE):
            b = up.recv(4096)
            if not b:
                conn.close()
                return
            got += len(b)
        conn.sendall(PART)


def client(port, count, last):
    c = socket.create_connection(("127.0.0.1", int(port)))
    n = int(count)
    kinds = ["w"] * (n - 1) + [last]
    if last == "r":
        kinds[-2:] = ["k", "w"]
    for i, kind in enumerate(kinds):
        if i and kinds[i - 1] == "k":
            time.sleep(0.3)  # the reset reaches the front end first
        c.sendall(kind.encode())
        got = 0
        while got < 2 * len(PART):
            b = c.recv(4096)
            if not b:
                print("cut", flush=True)
                return
            got += len(b)
        print("answered", flush=True)


if __name__ == "__main__":
    {"back": back, "front": front, "client": client}[sys.argv[1]](*sys.argv[2:])
