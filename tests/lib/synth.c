// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#define _GNU_SOURCE
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint.h"
#include "recfile.h"
#include "synth.h"
#include "../../bpf/siphash.h"

union synth_rec {
	struct vpr_hdr h;
	struct vpr_sock_op op;
	struct vpr_conn conn;
	struct vpr_task task;
	struct vpr_drops drops;
	struct vpr_clock clock;
	struct vpr_addr addr;
};

struct buffered_rec {
	union synth_rec r;
	uint64_t seq;
};

struct synth_host {
	struct vpr_writer *w;
	int64_t clock;
	uint32_t netns; /* named by the VPR_CONN and VPR_ADDR records written next */
	int err;	/* first append error, reported by close */
	bool buffered;
	struct buffered_rec *buf;
	size_t nbuf, cap;
	uint64_t nbuffered; /* sequence numbers keep equal timestamps in written order */
};

uint32_t synth_version;

static struct synth_host *host_new(const char *path, const char *hostname, const char *boot_id,
				   uint32_t netns, uint32_t flags, uint32_t segment,
				   int64_t wall_ahead)
{
	struct vpr_file_header hdr;
	struct synth_host *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	memset(&hdr, 0, sizeof(hdr));
	snprintf(hdr.hostname, sizeof(hdr.hostname), "%s", hostname);
	if (boot_id)
		snprintf(hdr.boot_id, sizeof(hdr.boot_id), "%s", boot_id);
	else
		snprintf(hdr.boot_id, sizeof(hdr.boot_id), "boot-%s", hostname);
	snprintf(hdr.machine_id, sizeof(hdr.machine_id), "%032x", (unsigned)netns);
	snprintf(hdr.kernel, sizeof(hdr.kernel), "6.18.0-synthetic");
	hdr.netns = netns;
	hdr.flags = flags;
	hdr.segment = segment;
	hdr.start_real_ns = 1700000000000000000ull + (uint64_t)wall_ahead;
	hdr.version = synth_version;
	h->w = vpr_writer__create(path, &hdr);
	if (!h->w) {
		free(h);
		return NULL;
	}
	return h;
}

struct synth_host *synth_host__new(const char *path, const char *hostname, const char *boot_id,
				   uint32_t netns)
{
	return host_new(path, hostname, boot_id, netns, 0, 0, 0);
}

struct synth_host *synth_host__new_wall(const char *path, const char *hostname, const char *boot_id,
					uint32_t netns, int64_t wall_ahead_ns)
{
	return host_new(path, hostname, boot_id, netns, 0, 0, wall_ahead_ns);
}

struct synth_host *synth_host__new_segment(const char *path, const char *hostname,
					   const char *boot_id, uint32_t netns, uint32_t segment)
{
	return host_new(path, hostname, boot_id, netns, VPR_FILE_SEGMENT, segment, 0);
}

void synth_host__set_clock(struct synth_host *h, int64_t delta_ns)
{
	h->clock = delta_ns;
}

void synth_host__set_netns(struct synth_host *h, uint32_t netns)
{
	h->netns = netns;
}

uint64_t synth_host__records(const struct synth_host *h)
{
	return vpr_writer__records(h->w) + h->nbuf;
}

void synth_host__set_buffered(struct synth_host *h, bool on)
{
	if (!on)
		synth_host__drain(h, UINT64_MAX);
	h->buffered = on;
}

static int by_ts(const void *a, const void *b)
{
	const struct buffered_rec *x = a, *y = b;

	if (x->r.h.ts_ns != y->r.h.ts_ns)
		return x->r.h.ts_ns < y->r.h.ts_ns ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void synth_host__drain(struct synth_host *h, uint64_t before)
{
	size_t n = 0;

	if (!h->nbuf)
		return;
	qsort(h->buf, h->nbuf, sizeof(*h->buf), by_ts);
	while (n < h->nbuf &&
	       (before == UINT64_MAX || h->buf[n].r.h.ts_ns < before + (uint64_t)h->clock)) {
		int err = vpr_writer__append(h->w, &h->buf[n].r);

		if (err && !h->err)
			h->err = err;
		n++;
	}
	memmove(h->buf, h->buf + n, (h->nbuf - n) * sizeof(*h->buf));
	h->nbuf -= n;
}

int synth_host__close(struct synth_host *h)
{
	int err;

	if (!h)
		return 0;
	synth_host__drain(h, UINT64_MAX);
	free(h->buf);
	err = vpr_writer__close(h->w);
	if (!err)
		err = h->err;
	free(h);
	return err;
}

static void put(struct synth_host *h, struct vpr_hdr *rec, uint16_t type, uint16_t size,
		uint64_t ts, uint32_t tid)
{
	int err;

	rec->type = type;
	rec->size = size;
	rec->tid = tid;
	rec->ts_ns = ts + (uint64_t)h->clock;
	if (h->buffered) {
		if (h->nbuf == h->cap) {
			h->cap = h->cap ? h->cap * 2 : 4096;
			h->buf = realloc(h->buf, h->cap * sizeof(*h->buf));
			if (!h->buf)
				abort();
		}
		memset(&h->buf[h->nbuf], 0, sizeof(h->buf[0]));
		memcpy(&h->buf[h->nbuf].r, rec, size);
		h->buf[h->nbuf++].seq = h->nbuffered++;
		return;
	}
	err = vpr_writer__append(h->w, rec);
	if (err && !h->err)
		h->err = err;
}

void synth_addr(struct synth_host *h, const char *addr)
{
	struct vpr_addr a = {0};
	struct vp_endpoint e;

	if (vp_endpoint__parse(addr, &e))
		abort(); /* a typo in a test */
	a.family = e.family;
	a.netns = h->netns;
	a.prefixlen = e.family == 2 ? 24 : 64;
	memcpy(a.addr, e.addr, 16);
	put(h, &a.h, VPR_ADDR, sizeof(a), 0, 0);
}

void synth_task(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t kind,
		const char *comm)
{
	struct vpr_task t = {0};

	t.pid = pid;
	t.kind = kind;
	memcpy(t.comm, comm, strnlen(comm, sizeof(t.comm) - 1));
	put(h, &t.h, VPR_TASK, sizeof(t), ts, tid);
}

void synth_task_exit(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t signal)
{
	struct vpr_task t = {0};

	t.pid = pid;
	t.kind = VPR_TASK_EXIT;
	t.exit_signal = signal;
	put(h, &t.h, VPR_TASK, sizeof(t), ts, tid);
}

static void conn_record(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie,
			uint32_t pid, uint8_t role, uint8_t origin, uint8_t oldstate,
			uint8_t newstate, const char *local, const char *remote, uint32_t snd_seq,
			uint32_t rcv_seq)
{
	struct vp_endpoint l, r;
	struct vpr_conn c = {0};

	if (vp_endpoint__parse(local, &l) || vp_endpoint__parse(remote, &r))
		abort(); /* a typo in a test */
	c.cookie = cookie;
	c.pid = pid;
	c.netns = h->netns;
	c.family = l.family;
	c.oldstate = oldstate;
	c.newstate = newstate;
	c.origin = origin;
	c.role = role;
	c.sport = l.port;
	c.dport = r.port;
	c.snd_seq = snd_seq;
	c.rcv_seq = rcv_seq;
	memcpy(c.saddr, l.addr, 16);
	memcpy(c.daddr, r.addr, 16);
	put(h, &c.h, VPR_CONN, sizeof(c), ts, tid);
}

void synth_conn(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid, uint8_t role,
		uint8_t origin, uint8_t newstate, const char *local, const char *remote,
		uint32_t snd_seq, uint32_t rcv_seq)
{
	conn_record(h, ts, 0, cookie, pid, role, origin, newstate == 1 ? 2 : 1, newstate, local,
		    remote, snd_seq, rcv_seq);
}

void synth_connecting(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid,
		      uint32_t tid, const char *local, const char *remote)
{
	conn_record(h, ts, tid, cookie, pid, VPR_ROLE_CONNECTED, VPR_CONN_STATE, 7 /* CLOSE */,
		    2 /* SYN_SENT */, local, remote, 0, 0);
}

void synth_refused(struct synth_host *h, uint64_t ts, uint64_t cookie, uint32_t pid,
		   const char *local, const char *remote)
{
	conn_record(h, ts, 0, cookie, pid, VPR_ROLE_CONNECTED, VPR_CONN_STATE, 2 /* SYN_SENT */,
		    7 /* CLOSE */, local, remote, 0, 0);
}

void synth_op(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
	      uint8_t dir, uint32_t bytes, uint32_t seq_end)
{
	synth_op_flags(h, ts, pid, tid, cookie, dir, bytes, seq_end, 0);
}

void synth_op_flags(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
		    uint8_t dir, uint32_t bytes, uint32_t seq_end, uint8_t flags)
{
	struct vpr_sock_op op = {0};

	op.flags = flags;
	op.cookie = cookie;
	op.pid = pid;
	op.bytes = bytes;
	op.seq_end = seq_end;
	op.dir = dir;
	put(h, &op.h, VPR_SOCK_OP, sizeof(op), ts, tid);
}

void synth_payload(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t cookie,
		   uint8_t dir, uint32_t bytes, uint32_t seq_end, const void *data, uint16_t len)
{
	struct vpr_payload p = {0};

	p.cookie = cookie;
	p.pid = pid;
	p.seq_end = seq_end;
	p.bytes = bytes;
	p.len = len;
	p.dir = dir;
	/*
	 * A len beyond VPR_PAYLOAD_MAX makes a damaged record: 8 bytes stored
	 * (the reader must not trust len), and only those read from data.
	 */
	uint16_t stored = len > VPR_PAYLOAD_MAX ? 8 : len;

	memcpy(p.data, data, stored);
	put(h, &p.h, VPR_PAYLOAD, VPR_PAYLOAD_SIZE(stored), ts, tid);
}

void synth_log(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint64_t ino,
	       const char *text)
{
	struct vpr_log l = {0};
	size_t n = strlen(text);

	l.pid = pid;
	l.fd = 3;
	l.ino = ino;
	l.len = (uint16_t)(n < VPR_LOG_MAX ? n : VPR_LOG_MAX);
	l.bytes = (uint32_t)n;
	l.kind = VPR_LOG_FILE;
	memcpy(l.data, text, l.len);
	put(h, &l.h, VPR_LOG, VPR_LOG_SIZE(l.len), ts, tid);
}

void synth_xfer_data(struct synth_link *l, enum synth_dir d, const void *data, uint32_t bytes,
		     uint16_t capture, uint32_t stid, uint64_t send_ts, uint32_t rtid,
		     uint64_t recv_ts)
{
	uint32_t end = l->seq[d] + bytes;
	uint16_t len = capture < bytes ? capture : (uint16_t)bytes;

	synth_xfer(l, d, bytes, stid, send_ts, rtid, recv_ts);
	for (int side = 0; side < 2; side++) {
		bool sender = (d == SYNTH_C2S) == (side == 0);

		if (l->host[side])
			synth_payload(l->host[side], sender ? send_ts : recv_ts, l->pid[side],
				      sender ? stid : rtid, l->cookie[side],
				      sender ? VPR_DIR_SEND : VPR_DIR_RECV, bytes, end, data, len);
	}
}

/* The key of a synthetic recording's hashes (a recorder draws one at random). */
static const uint64_t synth_key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};

void synth_hash_prefixes(const uint64_t key[2], const void *data, uint16_t len,
			 struct vpr_payload_hash *p)
{
	uint64_t w[VPR_PAYLOAD_HASH_MAX / 8 + 1] = {0};
	struct siphash s;
	uint32_t i;

	memcpy(w, data, len < VPR_PAYLOAD_HASH_MAX ? len : VPR_PAYLOAD_HASH_MAX);
	sip_init(&s, key[0], key[1]);
	p->hash_8 = p->hash_24 = 0;
	for (i = 0; (i + 1) * 8 <= len && i < VPR_PAYLOAD_HASH_MAX / 8; i++) {
		sip_word(&s, w[i]);
		if (i == 0)
			p->hash_8 = sip_final(&s, 0, 8);
		if (i == 2)
			p->hash_24 = sip_final(&s, 0, 24);
	}
	p->hash = sip_final(&s, w[i], len);
}

void synth_xfer_hash(struct synth_link *l, enum synth_dir d, const void *data, uint32_t bytes,
		     uint16_t capture, uint32_t stid, uint64_t send_ts, uint32_t rtid,
		     uint64_t recv_ts)
{
	uint32_t end = l->seq[d] + bytes;
	uint16_t len = capture < bytes ? capture : (uint16_t)bytes;

	synth_xfer(l, d, bytes, stid, send_ts, rtid, recv_ts);
	for (int side = 0; side < 2; side++) {
		bool sender = (d == SYNTH_C2S) == (side == 0);
		struct vpr_payload_hash p = {0};

		if (!l->host[side])
			continue;
		synth_hash_prefixes(synth_key, data, len, &p);
		p.cookie = l->cookie[side];
		p.pid = l->pid[side];
		p.seq_end = end;
		p.bytes = bytes;
		p.len = len;
		p.dir = sender ? VPR_DIR_SEND : VPR_DIR_RECV;
		put(l->host[side], &p.h, VPR_PAYLOAD_HASH, sizeof(p), sender ? send_ts : recv_ts,
		    sender ? stid : rtid);
	}
}

void synth_drops(struct synth_host *h, uint64_t ts, uint32_t cpu, uint64_t lost)
{
	struct vpr_drops d = {0};

	d.lost = lost;
	put(h, &d.h, VPR_DROPS, sizeof(d), ts, cpu);
}

void synth_wake(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t waker, uint32_t woken)
{
	struct vpr_wakeup w = {0};

	w.pid = w.woken_pid = pid;
	w.woken_tid = woken;
	put(h, &w.h, VPR_WAKEUP, sizeof(w), ts, waker);
}

void synth_send_failed(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid,
		       uint64_t cookie, int32_t err)
{
	struct vpr_send_failed f = {0};

	f.cookie = cookie;
	f.pid = pid;
	f.err = err;
	put(h, &f.h, VPR_SEND_FAILED, sizeof(f), ts, tid);
}

void synth_go(struct synth_host *h, uint64_t ts, uint32_t pid, uint32_t tid, uint32_t kind,
	      uint64_t goid, uint64_t other)
{
	struct vpr_goroutine g = {0};

	g.pid = pid;
	g.kind = kind;
	g.goid = goid;
	g.other = other;
	put(h, &g.h, VPR_GOROUTINE, sizeof(g), ts, tid);
}

void synth_clock(struct synth_host *h, uint64_t ts, uint64_t realtime_ns)
{
	struct vpr_clock c = {0};

	c.realtime_ns = realtime_ns;
	put(h, &c.h, VPR_CLOCK, sizeof(c), ts, 0);
}

static uint32_t isn_of(uint64_t cookie)
{
	uint64_t x = cookie * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

static struct synth_link *link_new(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
				   struct synth_host *sh, uint64_t scookie, uint32_t spid,
				   const char *caddr, const char *saddr)
{
	struct synth_link *l = calloc(1, sizeof(*l));

	if (!l)
		abort();
	l->host[0] = ch;
	l->host[1] = sh;
	l->cookie[0] = ccookie;
	l->cookie[1] = scookie;
	l->pid[0] = cpid;
	l->pid[1] = spid;
	l->seq[SYNTH_C2S] = isn_of(ccookie * 31 + scookie);
	l->seq[SYNTH_S2C] = isn_of(scookie * 17 + ccookie + 5);
	snprintf(l->addr[0], sizeof(l->addr[0]), "%s", caddr ? caddr : "");
	snprintf(l->addr[1], sizeof(l->addr[1]), "%s", saddr ? saddr : "");
	return l;
}

struct synth_link *synth_link__open_as(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
				       struct synth_host *sh, uint64_t scookie, uint32_t spid,
				       const char *caddr, const char *saddr, uint64_t ts,
				       uint8_t origin, bool known_roles)
{
	struct synth_link *l = link_new(ch, ccookie, cpid, sh, scookie, spid, caddr, saddr);

	if (ch)
		synth_conn(ch, ts, ccookie, cpid,
			   known_roles ? VPR_ROLE_CONNECTED : VPR_ROLE_UNKNOWN, origin, 1, caddr,
			   saddr, l->seq[SYNTH_C2S], l->seq[SYNTH_S2C]);
	if (sh)
		synth_conn(sh, ts, scookie, spid,
			   known_roles ? VPR_ROLE_ACCEPTED : VPR_ROLE_UNKNOWN, origin, 1, saddr,
			   caddr, l->seq[SYNTH_S2C], l->seq[SYNTH_C2S]);
	return l;
}

struct synth_link *synth_link__open(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
				    struct synth_host *sh, uint64_t scookie, uint32_t spid,
				    const char *caddr, const char *saddr, uint64_t ts)
{
	return synth_link__open_as(ch, ccookie, cpid, sh, scookie, spid, caddr, saddr, ts,
				   VPR_CONN_STATE, true);
}

struct synth_link *synth_link__open_silent(struct synth_host *ch, uint64_t ccookie, uint32_t cpid,
					   struct synth_host *sh, uint64_t scookie, uint32_t spid)
{
	struct synth_link *l = link_new(ch, ccookie, cpid, sh, scookie, spid, NULL, NULL);

	l->no_conn_records = true;
	return l;
}

void synth_xfer_half(struct synth_link *l, enum synth_dir d, bool recv_side, uint32_t bytes,
		     uint32_t tid, uint64_t ts, bool advance)
{
	/* The sender of c2s is the client (side 0), its receiver the server. */
	int side = (d == SYNTH_C2S) == !recv_side ? 0 : 1;
	uint32_t end = l->seq[d] + bytes;

	if (l->host[side])
		synth_op_flags(l->host[side], ts, l->pid[side], tid, l->cookie[side],
			       recv_side ? VPR_DIR_RECV : VPR_DIR_SEND, bytes, end, l->op_flags);
	if (advance)
		l->seq[d] = end;
}

void synth_xfer(struct synth_link *l, enum synth_dir d, uint32_t bytes, uint32_t stid,
		uint64_t send_ts, uint32_t rtid, uint64_t recv_ts)
{
	synth_xfer_half(l, d, false, bytes, stid, send_ts, false);
	synth_xfer_half(l, d, true, bytes, rtid, recv_ts, true);
}

void synth_req(struct synth_link *l, uint32_t bytes, uint32_t ctid, uint64_t t, uint32_t stid)
{
	synth_xfer(l, SYNTH_C2S, bytes, ctid, t, stid, t + SYNTH_DELAY_NS);
}

void synth_rep(struct synth_link *l, uint32_t bytes, uint32_t stid, uint64_t t, uint32_t ctid)
{
	synth_xfer(l, SYNTH_S2C, bytes, stid, t, ctid, t + SYNTH_DELAY_NS);
}

void synth_link__free(struct synth_link *l)
{
	free(l);
}

/* One state change of each recorded end: client_state on the client, server_state on the server. */
static void link_states(struct synth_link *l, uint64_t ts, uint8_t client_state,
			uint8_t server_state)
{
	for (int side = 0; side < 2 && !l->no_conn_records; side++) {
		uint8_t state = side ? server_state : client_state;

		if (!l->host[side])
			continue;
		/* As the recorder: a process is named only on the transitions it makes (not CLOSE). */
		synth_conn(l->host[side], ts, l->cookie[side], state == 7 ? 0 : l->pid[side],
			   side ? VPR_ROLE_ACCEPTED : VPR_ROLE_CONNECTED, VPR_CONN_STATE, state,
			   l->addr[side], l->addr[!side], l->seq[side ? SYNTH_S2C : SYNTH_C2S],
			   l->seq[side ? SYNTH_C2S : SYNTH_S2C]);
	}
}

void synth_link__close(struct synth_link *l, uint64_t ts)
{
	link_states(l, ts, 7, 7);
	free(l);
}

void synth_link__close_orderly(struct synth_link *l, uint64_t ts)
{
	link_states(l, ts, 4 /* FIN_WAIT1 */, 8 /* CLOSE_WAIT */);
	link_states(l, ts + 1000, 7, 9 /* LAST_ACK */);
	link_states(l, ts + 2000, 7, 7);
	free(l);
}

void synth_link__close_server_first(struct synth_link *l, uint64_t ts)
{
	link_states(l, ts, 8 /* CLOSE_WAIT */, 4 /* FIN_WAIT1 */);
	link_states(l, ts + 1000, 9 /* LAST_ACK */, 7);
	link_states(l, ts + 2000, 7, 7);
	free(l);
}

int synth_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/vpath-synth.XXXXXX");
	return mkdtemp(dir) ? 0 : -errno;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void synth_rmdir(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void h2_record(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie, uint8_t dir,
		      uint32_t seq, uint8_t type, uint8_t flags, uint32_t stream, uint32_t length,
		      uint8_t kind)
{
	struct vpr_h2_frame f = {0};

	f.cookie = cookie;
	f.seq = seq;
	f.stream_id = stream;
	f.length = length;
	f.type = type;
	f.flags = flags;
	f.dir = dir;
	f.kind = kind;
	put(h, &f.h, VPR_H2_FRAME, sizeof(f), ts, tid);
}

void synth_h2_lost(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie, uint8_t dir,
		   uint32_t seq, uint8_t why)
{
	h2_record(h, ts, tid, cookie, dir, seq, why, 0, 0, 0, VPR_H2_LOST);
}

void synth_h2_frame(struct synth_host *h, uint64_t ts, uint32_t tid, uint64_t cookie, uint8_t dir,
		    uint32_t seq, uint8_t type, uint8_t flags, uint32_t stream, uint32_t length)
{
	h2_record(h, ts, tid, cookie, dir, seq, type, flags, stream, length, VPR_H2_HEADER);
}

/* Frame f's 9-byte header (RFC 9113 4.1). */
static void h2_frame_header(uint8_t *d, const struct synth_h2 *f)
{
	d[0] = (uint8_t)(f->length >> 16);
	d[1] = (uint8_t)(f->length >> 8);
	d[2] = (uint8_t)f->length;
	d[3] = f->type;
	d[4] = f->flags;
	d[5] = (uint8_t)(f->stream >> 24 & 0x7f);
	d[6] = (uint8_t)(f->stream >> 16);
	d[7] = (uint8_t)(f->stream >> 8);
	d[8] = (uint8_t)f->stream;
}

/* Frame f's record p (len bytes of data[] filled) at stream position at, written by side. */
static void h2_payload_put(struct synth_link *l, int side, uint8_t dir, const struct synth_h2 *f,
			   uint32_t at, struct vpr_payload *p, uint32_t len, uint8_t flags,
			   uint32_t tid, uint64_t ts)
{
	p->cookie = l->cookie[side];
	p->pid = l->pid[side];
	p->seq_end = at + 9 + f->length;
	p->bytes = 9 + f->length;
	p->len = (uint16_t)len;
	p->dir = dir;
	p->flags = flags;
	put(l->host[side], &p->h, VPR_PAYLOAD, VPR_PAYLOAD_SIZE(len), ts, tid);
}

/*
 * The block of HEADERS frame f at stream position at, sent or received by
 * side (struct synth_link's h2_blocks), stamped like its frame's record.
 */
static void h2_block(struct synth_link *l, int side, uint8_t dir, const struct synth_h2 *f,
		     uint32_t at, uint32_t tid, uint64_t ts)
{
	/* The way it goes: the client's sends and the server's receives are c2s. */
	enum synth_dir d = (side == 1) != (dir == VPR_DIR_RECV) ? SYNTH_S2C : SYNTH_C2S;
	struct vpr_payload p = {0};
	uint32_t len = 9 + f->length, n = 9, pad;

	if (!l->h2_blocks || f->type != 1 /* HEADERS */)
		return;
	if (len > VPR_PAYLOAD_MAX)
		len = VPR_PAYLOAD_MAX;
	h2_frame_header(p.data, f);
	/* HPACK's static table (RFC 7541 A): 2 :method GET, 4 :path /; 8 :status 200. */
	if (d == SYNTH_C2S) {
		p.data[n++] = 0x82;
		p.data[n++] = 0x84;
	} else {
		p.data[n++] = 0x88;
	}
	/* x: aaa..., a literal field without indexing, new name. */
	pad = 9 + f->length - n;
	if (pad >= 4 && pad - 4 < 127 && n + pad <= VPR_PAYLOAD_MAX) {
		p.data[n++] = 0x00;
		p.data[n++] = 1;
		p.data[n++] = 'x';
		p.data[n++] = (uint8_t)(pad - 4);
		memset(p.data + n, 'a', pad - 4);
	}
	h2_payload_put(l, side, dir, f, at, &p, len,
		       VPR_PAYLOAD_H2_FRAME |
			       (l->h2_block_seen[side][dir & 1] ? 0 : VPR_PAYLOAD_H2_FIRST),
		       tid, ts);
	l->h2_block_seen[side][dir & 1] = true;
}

/* DATA frame f's first bytes (of body) at stream position at, stamped like its frame's record. */
static void h2_data(struct synth_link *l, int side, uint8_t dir, const struct synth_h2 *f,
		    const char *body, uint32_t at, uint32_t tid, uint64_t ts)
{
	struct vpr_payload p = {0};
	uint32_t len = 9 + f->length, n = (uint32_t)strlen(body);

	if (len > VPR_PAYLOAD_MAX)
		len = VPR_PAYLOAD_MAX;
	if (n > len - 9)
		n = len - 9;
	h2_frame_header(p.data, f);
	memcpy(p.data + 9, body, n);
	h2_payload_put(l, side, dir, f, at, &p, len, VPR_PAYLOAD_H2_FRAME | VPR_PAYLOAD_H2_DATA,
		       tid, ts);
}

/* One end's operation of synth_h2_xfer and its frame records. */
static void h2_side(struct synth_link *l, int side, uint8_t dir, bool preface,
		    const struct synth_h2 *f, unsigned n, uint32_t start, uint32_t bytes,
		    uint32_t tid, uint64_t ts)
{
	uint32_t at = start + (preface ? 24 : 0);

	if (!l->host[side])
		return;
	synth_op_flags(l->host[side], ts, l->pid[side], tid, l->cookie[side], dir, bytes,
		       start + bytes, preface ? VPR_OP_STREAM_START | VPR_OP_H2_PREFACE : 0);
	for (unsigned i = 0; i < n; i++) {
		synth_h2_frame(l->host[side], ts, tid, l->cookie[side], dir, at, f[i].type,
			       f[i].flags, f[i].stream, f[i].length);
		h2_block(l, side, dir, &f[i], at, tid, ts);
		if (f[i].type == 0 /* DATA */ && l->h2_bodies && l->h2_bodies[i])
			h2_data(l, side, dir, &f[i], l->h2_bodies[i], at, tid, ts);
		at += 9 + f[i].length;
	}
}

/* A ciphertext transfer of bytes on l in direction d, flags on both ends' operations. */
static void tls_cipher(struct synth_link *l, enum synth_dir d, uint32_t bytes, uint8_t flags,
		       uint32_t stid, uint64_t send_ts, uint32_t rtid, uint64_t recv_ts)
{
	int sender = d == SYNTH_C2S ? 0 : 1;
	uint32_t end = l->seq[d] + bytes;

	if (l->host[sender])
		synth_op_flags(l->host[sender], send_ts, l->pid[sender], stid, l->cookie[sender],
			       VPR_DIR_SEND, bytes, end, flags);
	if (l->host[!sender])
		synth_op_flags(l->host[!sender], recv_ts, l->pid[!sender], rtid, l->cookie[!sender],
			       VPR_DIR_RECV, bytes, end, flags);
	l->seq[d] = end;
}

void synth_tls_handshake(struct synth_link *l, uint32_t ctid, uint32_t stid, uint64_t ts)
{
	uint8_t hs = VPR_OP_STREAM_START | VPR_OP_TLS_HS;

	l->plain[SYNTH_C2S] = l->seq[SYNTH_C2S];
	l->plain[SYNTH_S2C] = l->seq[SYNTH_S2C];
	tls_cipher(l, SYNTH_C2S, 358, hs, ctid, ts, stid, ts + 1000);
	tls_cipher(l, SYNTH_S2C, 766, hs, stid, ts + 2000, ctid, ts + 3000);
	tls_cipher(l, SYNTH_C2S, 80, 0, ctid, ts + 4000, stid, ts + 5000);
}

/* One end's plaintext operation of synth_h2_tls_xfer and its frame records. */
static void h2_tls_side(struct synth_link *l, int side, uint8_t dir, bool preface,
			const struct synth_h2 *f, unsigned n, uint32_t start, uint32_t bytes,
			uint32_t tid, uint64_t ts)
{
	struct vpr_tls_op op = {0};
	uint32_t at = start + (preface ? 24 : 0);

	if (!l->host[side])
		return;
	op.flags = preface ? VPR_OP_STREAM_START | VPR_OP_H2_PREFACE : 0;
	op.cookie = l->cookie[side];
	op.pid = l->pid[side];
	op.bytes = bytes;
	op.seq_end = start + bytes;
	op.dir = dir;
	put(l->host[side], &op.h, VPR_TLS_OP, sizeof(op), ts, tid);
	for (unsigned i = 0; i < n; i++) {
		h2_record(l->host[side], ts, tid, l->cookie[side], dir, at, f[i].type, f[i].flags,
			  f[i].stream, f[i].length, VPR_H2_HEADER | VPR_H2_IN_TLS);
		h2_block(l, side, dir, &f[i], at, tid, ts);
		if (f[i].type == 0 /* DATA */ && l->h2_bodies && l->h2_bodies[i])
			h2_data(l, side, dir, &f[i], l->h2_bodies[i], at, tid, ts);
		at += 9 + f[i].length;
	}
}

void synth_h2_tls_xfer(struct synth_link *l, enum synth_dir d, bool preface,
		       const struct synth_h2 *f, unsigned n, uint32_t stid, uint64_t send_ts,
		       uint32_t rtid, uint64_t recv_ts)
{
	uint32_t bytes = preface ? 24 : 0, start = l->plain[d];
	int sender = d == SYNTH_C2S ? 0 : 1;

	for (unsigned i = 0; i < n; i++)
		bytes += 9 + f[i].length;
	/* The sender writes its plaintext, then its ciphertext goes; the receiver reads it first. */
	h2_tls_side(l, sender, VPR_DIR_SEND, preface, f, n, start, bytes, stid, send_ts);
	tls_cipher(l, d, bytes + 22, 0, stid, send_ts + 1, rtid, recv_ts - 1);
	h2_tls_side(l, !sender, VPR_DIR_RECV, preface, f, n, start, bytes, rtid, recv_ts);
	l->plain[d] = start + bytes;
	l->h2_bodies = NULL;
}

void synth_h2_xfer(struct synth_link *l, enum synth_dir d, bool preface, const struct synth_h2 *f,
		   unsigned n, uint32_t stid, uint64_t send_ts, uint32_t rtid, uint64_t recv_ts)
{
	uint32_t bytes = preface ? 24 : 0, start = l->seq[d];
	/* The sender of c2s is the client (side 0). */
	int sender = d == SYNTH_C2S ? 0 : 1;

	for (unsigned i = 0; i < n; i++)
		bytes += 9 + f[i].length;
	h2_side(l, sender, VPR_DIR_SEND, preface, f, n, start, bytes, stid, send_ts);
	h2_side(l, !sender, VPR_DIR_RECV, preface, f, n, start, bytes, rtid, recv_ts);
	l->seq[d] = start + bytes;
	l->h2_bodies = NULL;
}
