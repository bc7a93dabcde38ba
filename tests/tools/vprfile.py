"""The records of a recording (docs/format.md), versions 1 and 2, for the
test scripts that look into files themselves: each record as the C reader
hands it out, the bytes of its struct (version 2's packed records unpacked,
as common/reccodec.c does).  Reading stops quietly at the first block that
is not whole; the C reader (recfile.c) is the one that judges damage.

    from vprfile import header_flags, records
    for rtype, raw in records(path):  # raw: the record's bytes, header included
"""
import struct

HEADER, BLOCK_HEADER, BLOCK_MAGIC = 256, 16, 0x4B4C4256
SOCK_OP = 1
OP_RECV, OP_NEW_SOCK, OP_TID, OP_PID, OP_SEQ, OP_FLAGS = 0x04, 0x08, 0x10, 0x20, 0x40, 0x80


def header_flags(data):
    return struct.unpack_from("<I", data, 32)[0]


def _var(b, pos):
    v, shift = 0, 0
    while True:
        c = b[pos]
        pos += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, pos


def _svar(b, pos):
    v, pos = _var(b, pos)
    return (v >> 1) ^ -(v & 1), pos


def _unpack_block(body, count):
    """Yields (type, raw) for the count packed records of one version 2 block."""
    pos, last_ts, socks = 0, 0, []
    for _ in range(count):
        tag = body[pos]
        pos += 1
        if tag & 3 == 1:  # any record: type, size, time, tid, then its bytes
            rtype, pos = _var(body, pos)
            size, pos = _var(body, pos)
            dt, pos = _svar(body, pos)
            tid, pos = _var(body, pos)
            last_ts = (last_ts + dt) % 2**64
            raw = struct.pack("<HHIQ", rtype, size, tid, last_ts) + body[pos:pos + size - 16]
            pos += size - 16
            yield rtype, raw
            continue
        if tag & 3:
            raise ValueError("packed block: unknown item")
        d = 1 if tag & OP_RECV else 0
        dt, pos = _svar(body, pos)
        last_ts = (last_ts + dt) % 2**64
        key, pos = _var(body, pos)
        if tag & OP_NEW_SOCK:
            socks.append({"cookie": key, "tid": 0, "pid": 0, "seq": [None, None]})
            s = socks[-1]
        else:
            s = socks[key]
        if tag & OP_TID:
            s["tid"], pos = _var(body, pos)
        if tag & OP_PID:
            s["pid"], pos = _var(body, pos)
        nbytes, pos = _var(body, pos)
        if tag & OP_SEQ:
            seq, pos = _var(body, pos)
        else:
            seq = (s["seq"][d] + nbytes) % 2**32
        s["seq"][d] = seq
        flags = 0
        if tag & OP_FLAGS:
            flags = body[pos]
            pos += 1
        yield SOCK_OP, struct.pack("<HHIQQIIIBBH", SOCK_OP, 40, s["tid"], last_ts, s["cookie"],
                                   s["pid"], nbytes, seq, d, flags, 0)


def records(path):
    """Yields (type, raw) for every record of the file's whole blocks."""
    data = open(path, "rb").read()
    version = struct.unpack_from("<I", data, 8)[0]
    off = HEADER
    while off + BLOCK_HEADER <= len(data):
        magic, length, _crc, count = struct.unpack_from("<IIII", data, off)
        body = data[off + BLOCK_HEADER:off + BLOCK_HEADER + length]
        if magic != BLOCK_MAGIC or len(body) < length:
            return
        if version >= 2:
            yield from _unpack_block(body, count)
        else:
            pos = 0
            while pos + 16 <= len(body):
                rtype, size = struct.unpack_from("<HH", body, pos)
                if size < 16:
                    return
                yield rtype, body[pos:pos + size]
                pos += size
        off += BLOCK_HEADER + length
