"""What the recorder's checkers read from `vpath-analyze dump` output, and how they report.

Imported by check_first_bytes.py and check_h2.py (run from tests/tools/ or with it on
sys.path: python puts a script's own directory first).
"""
import re


class Tap:
    """TAP lines prefixed with a test name; failures counted for the exit status."""

    def __init__(self, name):
        self.name, self.failures = name, 0

    def report(self, ok, what, detail=""):
        if not ok:
            self.failures += 1
        print(("ok" if ok else "not ok") + f" - {self.name}: {what}" +
              ("" if ok or not detail else f" ({detail})"))


def fields(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def read_dump(path):
    """(ops, conns, others): sock_op and conn lines as dicts, the other lines as (kind, fields, words)."""
    ops, conns, others = [], [], []
    for line in open(path):
        kind = line.split(" ", 1)[0]
        d, words = fields(line), line.split()
        if kind == "sock_op":
            m = re.search(r"range=\[(\d+),(\d+)\)", line)
            ops.append(dict(ts=int(d["ts"]), cookie=d["cookie"], dir="send" if " send " in line else "recv",
                            bytes=int(d["bytes"]), range_start=int(m.group(1)), range_end=int(m.group(2)),
                            start="stream_start" in words, tls="tls_hs" in words,
                            preface="h2_preface" in words))
        elif kind == "conn":
            m = re.search(r":(\d+) -> \S+:(\d+)", line)
            conns.append(dict(cookie=d["cookie"], role=d["role"], sport=int(m.group(1)),
                              dport=int(m.group(2))))
        else:
            others.append((kind, d, words))
    return ops, conns, others
