#!/usr/bin/env python3
"""How decisive grpc-go's reader's readies are, on a kept go-grpc run.

    python3 tests/h2/readies.py DIR [--analyze .output/vpath-analyze]

DIR is a `tests/h2/run.sh --variant go-grpc --keep DIR` (or python-grpc)
directory.  From the front's recording (`vpath-analyze dump front.vpr`):
the reader goroutine (the one reading the connection to the back end's port
7100), each of its reads with the reply frames it carried (frames whose
header lies in that read), the goroutines it readied before its next socket
operation (not the loopy writer, the goroutine sending on that connection),
and for each readied goroutine the request it works for at that moment: the
request last begun on the session connection it reads, or, for a goroutine
created by another, its creator's then.  The truth (truth.jsonl) names
each stream's request.  Printed, for every stream:

  batch-equal   the read's distinct readied goroutines are as many as the
                streams it carried (first-frame order): right/wrong when
                the k-th goroutine's request is the k-th stream's
  by-end-order  the same pairing with the streams in the order they ended
  strict        one stream in the read, its reply's last frame among them,
                one goroutine readied, working for a request: right/wrong
                (the condition an exact rule would need; see
                docs/analyzer.md for why the links stay inferred)

Ground truth from the clients only; nothing here is the analyzer's.
"""
import argparse
import collections
import json
import re
import subprocess
import sys

KV = re.compile(r'(\w+)=("[^"]*"|\[[^)]*\)|\S+)')


def load_truth(d):
    truth = {}
    with open(d + '/truth.jsonl') as f:
        for line in f:
            t = json.loads(line)
            for _port, sid in t['calls']:
                truth[sid] = (t['client'], t['conn_index'])
    return truth


class Front:
    """The front's goroutines, sessions and reads, from its dump."""

    def __init__(self):
        self.cur = {}  # thread -> goroutine it runs
        self.bind = {}  # goroutine -> ('conn', cookie) | ('req', request)
        self.addr = {}  # session cookie -> client address
        self.begun = collections.Counter()  # session cookie -> requests begun
        self.grpc = None
        self.loopy = set()
        self.reads = []  # [reader, end seq, frames, readies]
        self.open_read = {}  # reader -> index in reads, None after another op
        self.frames = []  # (header seq, stream, type, flags)

    def request(self, g):
        b = self.bind.get(g)
        if not b:
            return None
        if b[0] == 'conn':
            return (self.addr.get(b[1]), self.begun[b[1]] - 1)
        return b[1]

    def line(self, line):
        kind = line.split(None, 1)[0] if line else ''
        f = dict(KV.findall(line))
        handler = getattr(self, 'on_' + kind, None)
        if handler:
            handler(line, f)

    def on_conn(self, line, f):
        m = re.search(r'(\S+):(\d+) -> (\S+):(\d+)', line)
        if not m:
            return
        if m.group(2) == '7000' and 'role=accepted' in line:
            self.addr[f['cookie']] = m.group(3) + ':' + m.group(4)
        if m.group(4) == '7100':
            self.grpc = f['cookie']

    def on_goroutine(self, line, f):
        op = line.split()[4]
        g = int(f['goid'])
        if op == 'run':
            self.cur[int(f['tid'])] = g
        elif op == 'new':
            r = self.request(g)
            if r:
                self.bind[int(f['other'])] = ('req', r)
        elif op == 'ready' and self.open_read.get(g) is not None:
            o = int(f['other'])
            self.reads[self.open_read[g]][3].append((o, self.request(o)))

    def on_sock_op(self, line, f):
        g = self.cur.get(int(f['tid']))
        c = f['cookie']
        if g in self.open_read:
            self.open_read[g] = None
        if c == self.grpc:
            if ' send ' in line:
                self.loopy.add(g)
                return
            end = int(re.match(r'\[(\d+),(\d+)\)', f['range']).group(2))
            self.reads.append([g, end, [], []])
            self.open_read[g] = len(self.reads) - 1
        elif c in self.addr and ' recv ' in line:
            self.bind[g] = ('conn', c)

    def on_payload(self, line, f):
        # A request begins with "P" (POST; net/http's background read takes 1 byte).
        if f['cookie'] in self.addr and ' recv ' in line and 'data="P' in line:
            self.begun[f['cookie']] += 1

    def on_h2_frame(self, line, f):
        if f['cookie'] == self.grpc and ' recv ' in line:
            self.frames.append((int(f['seq']), int(f['stream']), f['type'],
                                int(f['flags'], 16)))

    def batches(self):
        """Each read's frames (by header position), in order."""
        frames = sorted(self.frames)
        i = 0
        for r in self.reads:
            while i < len(frames) and frames[i][0] < r[1]:
                r[2].append(frames[i])
                i += 1
        return self.reads


def score(truth, front):
    stat = collections.Counter()
    for reader, _end, frames, readies in front.batches():
        touched, ended = [], []
        for _seq, sid, typ, flags in frames:
            if sid and typ in ('DATA', 'HEADERS'):
                if sid not in touched:
                    touched.append(sid)
                if flags & 1:
                    ended.append(sid)
        units, req = [], {}
        for o, r in readies:
            if o in front.loopy or o == reader or o in req:
                continue
            units.append(o)
            req[o] = r
        for k, sid in enumerate(touched):
            tr = truth.get(sid)
            stat['streams'] += 1
            if len(units) == len(touched):
                stat['batch-equal', req[units[k]] == tr] += 1
            if sid in ended and len(units) == len(ended):
                stat['by-end-order', req[units[ended.index(sid)]] == tr] += 1
            if (len(touched) == 1 and ended == [sid] and len(units) == 1
                    and req[units[0]] is not None):
                stat['strict', req[units[0]] == tr] += 1
    return stat


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--analyze', default='.output/vpath-analyze')
    args = ap.parse_args()
    dump = subprocess.run([args.analyze, 'dump', args.dir + '/front.vpr'], check=True,
                          capture_output=True, text=True).stdout
    front = Front()
    for line in dump.splitlines():
        front.line(line)
    if front.grpc is None:
        sys.exit('readies.py: no connection to port 7100 in the front\'s recording')
    truth = load_truth(args.dir)
    stat = score(truth, front)
    print('streams %d (truth %d), reads %d' % (stat['streams'], len(truth), len(front.reads)))
    for name in ('batch-equal', 'by-end-order', 'strict'):
        right, wrong = stat[name, True], stat[name, False]
        print('%-13s %5d right %5d wrong (%d of the streams)' % (name, right, wrong, right + wrong))
    return 0


if __name__ == '__main__':
    sys.exit(main())
