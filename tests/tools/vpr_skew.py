#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Clock skew after the fact: make one recording look as if its host were
another machine whose clock is off by SKEW.

  vpr_skew.py FILE SKEW_US

Rewrites the 256-byte header only (docs/format.md): start_real_ns moves by
SKEW (so the host's wall clock, all that relates its timestamps to other
hosts', is off by that much) and boot_id changes (so the analyzer no longer
knows the host shares a monotonic clock with the others and has to align it
from messages, as between real machines), and the header CRC is redone.
The records are untouched.  Every segment of a host must get the same SKEW.
"""
import struct
import sys
import zlib


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[3].strip())
    path, skew_ns = sys.argv[1], int(float(sys.argv[2]) * 1000)
    with open(path, "r+b") as f:
        hdr = bytearray(f.read(256))
        if len(hdr) != 256 or hdr[:8] != b"VPATHREC":
            sys.exit("vpr_skew: %s: not a vpath recording" % path)
        real, = struct.unpack_from("<q", hdr, 24)
        struct.pack_into("<q", hdr, 24, real + skew_ns)
        boot = bytearray(hdr[152:192])
        boot[0:8] = b"5ce3%04x" % (abs(skew_ns) // 1000 % 0x10000)
        hdr[152:192] = boot
        struct.pack_into("<I", hdr, 44, 0)
        struct.pack_into("<I", hdr, 44, zlib.crc32(bytes(hdr)) & 0xffffffff)
        f.seek(0)
        f.write(hdr)


if __name__ == "__main__":
    main()
