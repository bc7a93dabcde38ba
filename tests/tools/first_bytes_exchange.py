#!/usr/bin/env python3
"""Loopback connections whose first bytes the recorder classifies.

usage: first_bytes_exchange.py tls PORT CERT KEY
       first_bytes_exchange.py plain PORT

tls: one TLS connection (Python's ssl module, i.e. OpenSSL reading and
writing the socket with read()/write()): handshake, a request, a reply.

plain: several connections without TLS, each using other socket calls:
- sendto/recvfrom one way, write/read the other; the server's first reply is
  a single byte and the next message begins with bytes that look like a TLS
  handshake header, and so does the client's second message: within the
  stream's first 4 KiB they count (a handshake may follow a protocol's own
  opening), after 4 KiB of padding the same bytes do not;
- a first message in both directions that is a TLS handshake record header
  followed by junk, by sendmsg/recvmsg one way and writev/readv the other:
  the recorder classifies bytes, not protocols, so these count as TLS;
- a message sent and closed at once, read together with the FIN.

For every connection it prints one line
  conn client_port=P client_send=X server_recv=X server_send=X client_recv=X
where X is what the first operation of that end and direction must carry:
"tls" (stream start + TLS handshake), "plain" (stream start only) or "none"
(no data that way), and optionally early_tls=N,M: the stream offsets where a
later message begins with a handshake header within the first 4 KiB (the
same for both ends).  Exits non-zero if an exchange went wrong.
"""
import os
import socket
import ssl
import sys
import threading
import time

TLS_LIKE = b"\x16\x03\x01\x00\x30"  # handshake, TLS 1.0 record version, 48 bytes


def listen(port):
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen()
    return srv


def read_exactly(read, n):
    got = b""
    while len(got) < n:
        chunk = read(n - len(got))
        if not chunk:
            raise EOFError(f"connection closed after {len(got)} of {n} bytes")
        got += chunk
    return got


def report(cl, client_send, server_recv, server_send, client_recv, early_c2s="", early_s2c=""):
    print(f"conn client_port={cl.getsockname()[1]} client_send={client_send} "
          f"server_recv={server_recv} server_send={server_send} client_recv={client_recv}"
          + (f" early_c2s={early_c2s}" if early_c2s else "")
          + (f" early_s2c={early_s2c}" if early_s2c else ""),
          flush=True)


def pair(srv, serve):
    """Connects a client to srv and runs serve(conn) in a thread; returns (client, join)."""
    errors = []

    def server():
        conn, _ = srv.accept()
        try:
            serve(conn)
        except Exception as e:  # reported by join()
            errors.append(e)
        finally:
            conn.close()

    t = threading.Thread(target=server)
    t.start()
    cl = socket.create_connection(("127.0.0.1", srv.getsockname()[1]))

    def join():
        t.join()
        if errors:
            raise errors[0]

    return cl, join


def tls_exchange(port, cert, key):
    srv = listen(port)
    sctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    sctx.load_cert_chain(cert, key)
    cctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    cctx.load_verify_locations(cert)

    def serve(conn):
        with sctx.wrap_socket(conn, server_side=True) as s:
            req = read_exactly(s.recv, 7)
            s.sendall(b"reply to " + req)

    cl, join = pair(srv, serve)
    with cctx.wrap_socket(cl, server_hostname="localhost") as s:
        report(s, "tls", "tls", "tls", "tls")
        s.sendall(b"request")
        if read_exactly(s.recv, 16) != b"reply to request":
            sys.exit("tls exchange: wrong reply")
    join()


PAD = b"p" * 5000  # puts what follows past the sampled first 4 KiB


def plain_calls(srv):
    late = TLS_LIKE + b"past 4 KiB"

    def serve(conn):
        read_exactly(lambda n: conn.recv(n), 11)  # recvfrom
        os.write(conn.fileno(), b"A")  # write: a 1-byte first message
        time.sleep(0.05)
        os.write(conn.fileno(), TLS_LIKE + b"not the stream's first bytes")
        read_exactly(lambda n: conn.recv(n), len(TLS_LIKE) + 4)
        read_exactly(lambda n: conn.recv(n), len(PAD))
        read_exactly(lambda n: conn.recv(n), len(late))
        os.write(conn.fileno(), PAD)
        time.sleep(0.05)
        os.write(conn.fileno(), late)

    cl, join = pair(srv, serve)
    report(cl, "plain", "plain", "plain", "plain", early_c2s="11", early_s2c="1")
    cl.send(b"hello world")  # sendto
    read_exactly(lambda n: os.read(cl.fileno(), n), 1)  # read
    read_exactly(lambda n: os.read(cl.fileno(), n), len(TLS_LIKE) + 28)
    cl.send(TLS_LIKE + b"more")
    cl.send(PAD)
    time.sleep(0.05)
    cl.send(late)
    read_exactly(lambda n: os.read(cl.fileno(), n), len(PAD))
    read_exactly(lambda n: os.read(cl.fileno(), n), len(late))
    join()
    cl.close()


def tls_like_calls(srv):
    body = b"j" * 48

    def serve(conn):
        data, _, _, _ = conn.recvmsg(4096)  # recvmsg
        while len(data) < len(TLS_LIKE) + len(body):
            data += conn.recv(4096)
        os.writev(conn.fileno(), [TLS_LIKE, body])  # writev, the header alone in the first iovec

    cl, join = pair(srv, serve)
    report(cl, "tls", "tls", "tls", "tls")
    cl.sendmsg([TLS_LIKE + body])  # sendmsg
    head, rest = bytearray(len(TLS_LIKE)), bytearray(len(body))
    n = os.readv(cl.fileno(), [head, rest])  # readv
    if n < len(TLS_LIKE):
        sys.exit("tls-like exchange: short readv")
    read_exactly(lambda k: os.read(cl.fileno(), k), len(TLS_LIKE) + len(body) - n)
    join()
    cl.close()


def message_then_fin(srv):
    got = []

    def serve(conn):
        time.sleep(0.3)  # the message and the FIN are both queued: one read takes both
        got.append(len(conn.recv(65536)))
        got.append(len(conn.recv(65536)))

    cl, join = pair(srv, serve)
    report(cl, "plain", "plain", "none", "none")
    cl.sendall(b"x" * 700)
    cl.close()
    join()
    if got != [700, 0]:
        sys.exit(f"fin exchange: server read {got}, wanted [700, 0]")


def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "tls":
        tls_exchange(port, sys.argv[3], sys.argv[4])
    elif mode == "plain":
        srv = listen(port)
        plain_calls(srv)
        tls_like_calls(srv)
        message_then_fin(srv)
    else:
        sys.exit(f"first_bytes_exchange: unknown mode '{mode}'")


if __name__ == "__main__":
    main()
