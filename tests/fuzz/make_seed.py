#!/usr/bin/env python3
"""Turns recordings (.vpr) into one fuzz_analyze input: the records of each
file without its header and block framing, which the target rebuilds.

    tests/fuzz/make_seed.py [--one-machine] [--per N] [--outputs N] [--raw] OUT FILE.vpr...

--per N: records per block in the rebuilt file (4 to 32, a multiple of 4);
at most 4 files, each cut to --max-bytes of records (whole records).
--outputs N: which outputs the target writes (its OUT_* bits, default all
but the dump: 63; 127 adds the dump); --raw: the files go to the reader as
they are (header and blocks included, cut to --max-bytes)."""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from vprfile import records  # noqa: E402



def records_of(path, max_bytes):
    """The file's records, unpacked (version 1's layout: what the target frames)."""
    out = bytearray()
    for _rtype, raw in records(path):
        if len(out) + len(raw) > max_bytes:
            break
        out += raw
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--one-machine", action="store_true")
    ap.add_argument("--per", type=int, default=16)
    ap.add_argument("--max-bytes", type=int, default=1024)
    ap.add_argument("--outputs", type=int, default=63)
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("out")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    if not 1 <= len(a.files) <= 4 or a.per % 4 or not 4 <= a.per <= 32:
        sys.exit("make_seed.py: 1 to 4 files, --per 4 to 32 in steps of 4")
    flags = (len(a.files) - 1) | (4 if a.one_machine else 0) | ((a.per // 4 - 1) << 3)
    flags |= 0x40 if a.raw else 0
    seed = bytearray([flags, a.outputs & 0xFF])
    for f in a.files:
        if a.raw:
            recs = open(f, "rb").read()[:a.max_bytes]
        else:
            recs = records_of(f, a.max_bytes)
        seed += struct.pack("<I", len(recs)) + recs
    open(a.out, "wb").write(seed)


if __name__ == "__main__":
    main()
