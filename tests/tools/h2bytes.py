"""Hand-made HTTP/2 bytes on loopback: what h2_raw_exchange.py and h2_server_first.py share.

No HTTP/2 library, so that the bytes are exactly where a test wants them.
Imported from tests/tools/ (python puts a script's own directory first).
"""
import socket
import struct
import threading

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def frame(ftype, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + struct.pack(">I", stream) + payload


def drain(s):
    """Reads until the peer closes."""
    while s.recv(65536):
        pass


def loopback(port, serve):
    """A listener on port whose one accepted socket serve(sock) runs in a thread (and closes
    after), and a client connected to it with TCP_NODELAY, printed as "conn client_port=N".
    Returns the client and the thread."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", port))
    srv.listen(1)

    def run():
        c, _ = srv.accept()
        serve(c)
        c.close()

    t = threading.Thread(target=run)
    t.start()
    cl = socket.create_connection(("127.0.0.1", port))
    cl.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    print(f"conn client_port={cl.getsockname()[1]}")
    return cl, t
