/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP/2 frame headers (VPR_H2_FRAME), on connections whose stream began
 * with the client preface, and only there.
 *
 * A followed socket has a struct h2_sock in its socket-local storage: the
 * walk of each direction (bpf/h2.h).  Socket storage rather than a hash by
 * cookie: it lives and dies with the socket (nothing to delete at close,
 * nothing left by a close that was not seen), it is never evicted while the
 * connection lives (an LRU map would silently stop following a busy
 * connection, and the analyzer would take the missing headers for none),
 * and finding it is a pointer load, not a hash.  Until the first connection
 * is followed (its preface, or a server's SETTINGS on trust), h2_active is 0
 * and no operation even looks.
 *
 * Each operation walks the headers that begin inside its bytes, reading
 * them from the caller's buffers (through its iovecs), 9 bytes each;
 * payloads are skipped by the headers' lengths, never read.  The walk
 * stops for good, and says so with a VPR_H2_LOST record, where it cannot
 * be sure of its place.  It runs in a bpf_loop() callback, whose step is
 * a global function (h2_walk_step()): the verifier walks the step once,
 * whatever the bound and however many ways a program comes to the loop.
 *
 * Included by vpath.bpf.c after capture.h and current_call_data().
 */
#ifndef VPATH_H2_FRAMES_H
#define VPATH_H2_FRAMES_H

#include "h2.h"

#ifndef __noinline
#define __noinline __attribute__((noinline))
#endif

struct h2_sock {
	struct h2_dir d[2]; /* by enum vpr_dir */
	/*
	 * 0 while only the server's SETTINGS was seen (h2_server_settings()),
	 * at the start of direction trusted's stream: the other direction's
	 * first operation decides, the client's preface or the end
	 * (h2_trust_decide()).
	 */
	__u32 confirmed;
	__u32 trusted; /* enum vpr_dir */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct h2_sock);
} h2_socks SEC(".maps");

/* Set once a connection is followed; until then operations skip the lookup. */
__u32 h2_active = 0;

/*
 * Whether sk may have an entry in h2_socks: a socket no BPF program gave
 * storage to has none, and one load of the socket spares the helper call
 * every other operation pays once h2_active is set (tp_btf programs only:
 * sk must be a BTF pointer).
 */
static __always_inline bool h2_may_follow(const struct sock *sk)
{
	return h2_active && sk->sk_bpf_storage;
}

/*
 * Steps (a header read, or the move to the next iovec) one operation may
 * take: a few hundred headers at least (a writev of one iovec per header
 * and per payload takes three steps a frame).  An operation with more loses the
 * direction's frames (VPR_H2_LOST_TOO_MANY).
 */
#define H2_MAX_STEPS 1024
#define H2_MAX_IOVECS 1024 /* UIO_MAXIOV */

/* A header block being read (--capture): what its record is to say. */
struct h2_block {
	__u64 ts; /* the frame record's stamp, thread and thread group (record.h) */
	__u32 tid, pid;
	__u32 seq;   /* the frame's stream position */
	__u32 len;   /* the frame's payload length */
	__u32 got;   /* bytes read: the frame header's 9, then the block's */
	__u32 want;  /* bytes it is to hold */
	__u32 flags; /* its record's VPR_PAYLOAD_H2_* */
	__u32 pad;
};

/*
 * One operation's walk of a direction (struct h2_loop): no pointer in it,
 * so that the step, a global function, may take it as plain memory.
 */
struct h2_walk {
	__u64 cookie;
	__u64 ts;
	__u32 tid;
	__u32 start, end; /* the operation's bytes in the stream */
	__u32 why;	  /* enum vpr_h2_lost, once lost */
	/* The caller's data: one buffer, or an array of iovecs. */
	__u32 kind; /* enum user_data_kind: BUF or IOVEC once set up */
	__u64 arg;  /* the buffer, or the iovec array */
	/* The buffer that holds the walk's next byte, once found. */
	__u32 iov_next; /* index of the iovec after it */
	__u32 buf_off;	/* offset in the operation of its first byte */
	__u64 buf;
	__u64 buf_len; /* 0: none found yet */
	__u32 pid;
	__u8 dir;
	__u8 capture; /* header blocks are captured (--capture, on this socket) */
	__u8 space;   /* or'ed into the records' kind: 0, or VPR_H2_IN_TLS (bpf/tls.h) */
	/* A header block being read into h2_block_bufs, a buffer a step (h2_block_step()). */
	__u8 blk_open;
	__u8 blk_carry; /* it goes on past the operation: to be carried (h2_block_park()) */
	__u32 blk_pos;	/* offset in the operation of its next byte */
	struct h2_block blk;
};

static __always_inline void h2_emit(const struct h2_walk *w, const struct h2_dir *d,
				    const struct h2_hdr *fr, __u8 kind, __u8 why)
{
	struct vpr_h2_frame *r = ring_reserve(sizeof(*r));

	if (!r)
		return;
	fill_hdr(&r->h, VPR_H2_FRAME, sizeof(*r), w->tid, w->ts);
	r->cookie = w->cookie;
	r->dir = w->dir;
	r->kind = kind | w->space;
	if (kind == VPR_H2_LOST) {
		r->seq = d->next;
		r->stream_id = 0;
		r->length = 0;
		r->type = why;
		r->flags = 0;
	} else {
		r->seq = fr->seq;
		r->stream_id = fr->stream_id;
		r->length = fr->len;
		r->type = fr->type;
		r->flags = fr->flags;
	}
	ring_submit(r);
}

/* The next buffer of the caller's data; false when there is none to read. */
static __always_inline bool h2_next_buf(struct h2_walk *w)
{
	struct iovec iov;
	__u32 i = w->iov_next;

	w->buf_off += w->buf_len;
	if (w->kind == USER_DATA_BUF) {
		if (i > 0)
			return false;
		w->buf = w->arg;
		w->buf_len = w->end - w->start;
	} else {
		if (i >= H2_MAX_IOVECS ||
		    bpf_probe_read_user(&iov, sizeof(iov),
					(const void *)(w->arg + i * sizeof(iov))))
			return false;
		w->buf = (__u64)iov.iov_base;
		w->buf_len = iov.iov_len;
	}
	w->iov_next = i + 1;
	return true;
}

/*
 * A header block is read into this first, piece by piece (a writer's
 * iovecs may cut it anywhere: grpcio's slices do), then copied whole into
 * its record.  Twice the largest record's data: a piece at any offset of
 * one stays inside as the verifier reckons it.
 */
struct h2_block_buf {
	__u8 b[2 * VPR_PAYLOAD_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct h2_block_buf);
} h2_block_bufs SEC(".maps");

/*
 * A header block that goes on past its operation, with what was read of
 * it (h2_block_park()): Go's http2 writes through a bufio.Writer, whose
 * write syscalls cut its 4 KiB buffer wherever it fills, a frame's header
 * from its block or a block in two.  The direction's next operation reads
 * the rest (h2_block_resume()).  Socket storage of its own, made at a
 * socket's first carry: sockets that never carry pay nothing for it.
 */
struct h2_carry_dir {
	struct h2_block blk;
	__u8 b[VPR_PAYLOAD_MAX];
};

struct h2_carry {
	struct h2_carry_dir d[2]; /* by enum vpr_dir */
};

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct h2_carry);
} h2_carries SEC(".maps");

/*
 * The bytes a walk with no socket at hand (a TLS connection's plaintext,
 * bpf/tls.h) makes its carry's map entry from: nothing reads them before
 * h2_block_park() writes its direction's, and d->carry says which is.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct h2_carry);
} h2_carry_fresh SEC(".maps");

/*
 * Whose bytes a walk reads: a socket's (its syscall's buffers, its
 * storage for carried blocks), or, with no socket at hand (sk NULL: a TLS
 * connection's plaintext, bpf/tls.h), a connection whose carried blocks
 * are the entry of map carries by key (NULL: none, a block is cut at its
 * operation's end).
 */
struct h2_owner {
	struct sock *sk;
	void *carries;
	const void *key;
};

/* The owner's carried blocks, made at its first carry (create). */
static __always_inline struct h2_carry *h2_carry_get(const struct h2_owner *o, bool create)
{
	struct h2_carry *c, *fresh;
	__u32 zero = 0;

	if (o->sk)
		return bpf_sk_storage_get(&h2_carries, o->sk, 0,
					  create ? BPF_SK_STORAGE_GET_F_CREATE : 0);
	if (!o->carries)
		return NULL;
	c = bpf_map_lookup_elem(o->carries, o->key);
	if (c || !create)
		return c;
	fresh = bpf_map_lookup_elem(&h2_carry_fresh, &zero);
	if (!fresh || bpf_map_update_elem(o->carries, o->key, fresh, BPF_NOEXIST))
		return NULL;
	return bpf_map_lookup_elem(o->carries, o->key);
}

/*
 * With --capture, a HEADERS or CONTINUATION frame whose header was just
 * read, ending at offset `at` of the operation: its header and the first
 * bytes of its block fragment, as many as the capture length and the
 * stream hold, are to be written as a VPR_PAYLOAD_H2_FRAME payload.  The
 * block is read a buffer a step of the walk (h2_block_step()): a writer's
 * iovecs may cut it anywhere (grpcio's slices do), and its writes too (the
 * rest is carried to the direction's next operation: struct h2_carry).  A
 * reader decodes HPACK only from whole blocks in order, so d->blocks
 * remembers whether every block so far was whole.
 */
static __always_inline void h2_block_begin(struct h2_walk *w, struct h2_dir *d,
					   const struct h2_hdr *fr, __u32 at)
{
	struct h2_block_buf *sc;
	__u32 zero = 0;

	if (capture_len < H2_FRAME_HDR_LEN)
		return;
	w->blk.flags = VPR_PAYLOAD_H2_FRAME;
	/*
	 * A DATA frame's first bytes (a message a relay forwards, docs/format.md)
	 * are no header block: HPACK's order of blocks is not theirs to change.
	 */
	if (fr->type == H2_DATA)
		w->blk.flags |= VPR_PAYLOAD_H2_DATA;
	else if (d->blocks == H2_BLOCKS_NONE)
		w->blk.flags |= VPR_PAYLOAD_H2_FIRST;
	else if (d->blocks == H2_BLOCKS_BROKEN)
		w->blk.flags |= VPR_PAYLOAD_H2_BROKEN;
	if (fr->type != H2_DATA)
		d->blocks = H2_BLOCKS_BROKEN; /* until its record is written whole */
	sc = bpf_map_lookup_elem(&h2_block_bufs, &zero);
	if (!sc)
		return;
	__builtin_memcpy(sc->b, d->hdr, H2_FRAME_HDR_LEN);
	w->blk_open = 1;
	w->blk_pos = at;
	w->blk.got = H2_FRAME_HDR_LEN;
	w->blk.want = H2_FRAME_HDR_LEN + fr->len;
	if (w->blk.want > capture_len)
		w->blk.want = capture_len;
	w->blk.seq = fr->seq;
	w->blk.len = fr->len;
	w->blk.tid = w->tid;
	w->blk.pid = w->pid;
	w->blk.ts = w->ts;
}

/* Block b's record, its bytes read into sc; d->blocks says whether all so far were whole. */
static __always_inline void h2_block_record(const struct h2_walk *w, struct h2_dir *d,
					    const struct h2_block *b, const struct h2_block_buf *sc)
{
	struct vpr_payload *p;
	__u32 len = b->got;

	p = bpf_ringbuf_reserve(&events, VPR_PAYLOAD_HDR_SIZE + CAPTURE_ROOM, 0);
	if (!p) {
		count_lost(1);
		return;
	}
	/* Bounded again where the verifier sees it: 9 <= len <= capture_len. */
	len &= VPR_PAYLOAD_MAX * 2 - 1;
	if (len > capture_len || len > VPR_PAYLOAD_MAX || len < H2_FRAME_HDR_LEN) {
		bpf_ringbuf_discard(p, 0);
		return;
	}
	barrier_var(len);
	/* The stored record's padding after the data must not be old ring memory. */
	*(__u64 *)(p->data + ((len >> 3) << 3)) = 0;
	if (bpf_probe_read_kernel(p->data, len, sc->b)) {
		bpf_ringbuf_discard(p, 0);
		return;
	}
	p->h.type = VPR_PAYLOAD;
	p->h.size = VPR_PAYLOAD_SIZE(len);
	p->h.tid = b->tid;
	p->h.ts_ns = b->ts;
	p->cookie = w->cookie;
	p->pid = b->pid;
	p->seq_end = b->seq + H2_FRAME_HDR_LEN + b->len;
	p->bytes = H2_FRAME_HDR_LEN + b->len;
	p->len = len;
	p->dir = w->dir;
	p->flags = b->flags;
	ring_submit(p);
	if (len == H2_FRAME_HDR_LEN + b->len &&
	    !(b->flags & (VPR_PAYLOAD_H2_BROKEN | VPR_PAYLOAD_H2_DATA)))
		d->blocks = H2_BLOCKS_WHOLE;
}

/* The open block read so far, as its record. */
static __always_inline void h2_block_end(struct h2_walk *w, struct h2_dir *d)
{
	struct h2_block_buf *sc;
	__u32 zero = 0;

	w->blk_open = 0;
	sc = bpf_map_lookup_elem(&h2_block_bufs, &zero);
	if (sc)
		h2_block_record(w, d, &w->blk, sc);
}

/*
 * One buffer's bytes of the open block, or its end; 1 when the block goes
 * on past the operation, which ends the walk: the next header lies past it.
 */
static __always_inline long h2_block_step(struct h2_walk *w, struct h2_dir *d)
{
	struct h2_block_buf *sc;
	__u32 zero = 0, n, off, op_len = w->end - w->start, pos = w->blk_pos;

	if (w->blk.got >= w->blk.want || (__u64)pos < w->buf_off) {
		h2_block_end(w, d);
		return 0;
	}
	/* The rest is in the direction's next operation. */
	if (pos >= op_len) {
		w->blk_open = 0;
		w->blk_carry = 1;
		return 1;
	}
	if ((__u64)pos >= (__u64)w->buf_off + w->buf_len) {
		if (w->kind != USER_DATA_IOVEC || !h2_next_buf(w))
			h2_block_end(w, d);
		return 0;
	}
	sc = bpf_map_lookup_elem(&h2_block_bufs, &zero);
	if (!sc) {
		h2_block_end(w, d);
		return 0;
	}
	n = w->buf_off + w->buf_len - pos;
	if (n > op_len - pos)
		n = op_len - pos;
	if (n > w->blk.want - w->blk.got)
		n = w->blk.want - w->blk.got;
	/* Bounded where the verifier sees it: got < want <= VPR_PAYLOAD_MAX. */
	off = w->blk.got & (VPR_PAYLOAD_MAX - 1);
	n &= VPR_PAYLOAD_MAX - 1;
	barrier_var(n);
	if (n == 0 ||
	    bpf_probe_read_user(sc->b + off, n, (const void *)(w->buf + (pos - w->buf_off)))) {
		h2_block_end(w, d);
		return 0;
	}
	w->blk.got += n;
	w->blk_pos += n;
	return 0;
}

/*
 * The open block goes on in the direction's next operation: what was read
 * of it waits in the socket's struct h2_carry.  d->carry says so, so that
 * only an operation that resumes one looks it up.
 */
static __always_inline void h2_block_park(struct h2_walk *w, struct h2_dir *d,
					  const struct h2_owner *o)
{
	struct h2_block_buf *sc;
	struct h2_carry *c;
	__u32 zero = 0;

	sc = bpf_map_lookup_elem(&h2_block_bufs, &zero);
	c = h2_carry_get(o, true);
	if (!sc)
		return;
	/* All of the block there may be: got <= want <= capture_len <= VPR_PAYLOAD_MAX. */
	if (!c || bpf_probe_read_kernel(c->d[w->dir & 1].b, sizeof(c->d[0].b), sc->b)) {
		/* Nowhere to keep it: cut here, as without a carry (the record says so). */
		h2_block_record(w, d, &w->blk, sc);
		return;
	}
	c->d[w->dir & 1].blk = w->blk;
	d->carry = 1;
}

/*
 * An operation of a direction with a block carried over (d->carry, w's
 * data found): the block goes on at its first byte, in its first buffer
 * (a writer that cuts blocks across writes writes plain buffers: Go's
 * bufio.Writer).  Its record is written here, before any of the
 * operation's frames, or the block is carried on when it goes on past this
 * operation too.  Here, not in the walk, and with nothing of w changed, so
 * that the walk's callback is verified from the states it was before.
 * Dropped (no record: a reader takes it for a block not captured) when
 * the operation comes too late for the record to be written in time
 * (H2_CARRY_NS); cut when it does not go on where the block does (the
 * recorder missed one), or its buffer is not to be had.
 */
static __always_inline void h2_block_resume(const struct h2_walk *w, struct h2_dir *d,
					    const struct h2_owner *o)
{
	__u32 zero = 0, got, off, n, op_len = w->end - w->start;
	struct h2_block_buf *sc;
	struct h2_carry_dir *cd;
	struct h2_carry *c;
	__u64 buf, room;

	d->carry = 0;
	sc = bpf_map_lookup_elem(&h2_block_bufs, &zero);
	c = h2_carry_get(o, false);
	if (!sc || !c)
		return;
	cd = &c->d[w->dir & 1];
	if ((__s64)(w->ts - cd->blk.ts) > (__s64)H2_CARRY_NS ||
	    bpf_probe_read_kernel(sc->b, sizeof(cd->b), cd->b))
		return;
	got = cd->blk.got;
	if (cd->blk.seq + got == w->start && got < cd->blk.want &&
	    user_data_first(w->kind, w->arg, &buf, &room)) {
		n = cd->blk.want - got;
		if (n > op_len)
			n = op_len;
		if (n > room)
			n = room;
		/* Bounded where the verifier sees it: got < want <= VPR_PAYLOAD_MAX. */
		off = got & (VPR_PAYLOAD_MAX - 1);
		n &= VPR_PAYLOAD_MAX - 1;
		barrier_var(n);
		if (n == 0 || bpf_probe_read_user(sc->b + off, n, (const void *)buf))
			n = 0;
		cd->blk.got += n;
		/* It goes on past this operation too: carried on. */
		if (n == op_len && cd->blk.got < cd->blk.want &&
		    !bpf_probe_read_kernel(cd->b, sizeof(cd->b), sc->b)) {
			d->carry = 1;
			return;
		}
	}
	h2_block_record(w, d, &cd->blk, sc);
}

/*
 * One step of the walk of d; 1 ends it (done, or w->why says why not).  A
 * global function: the verifier walks it once, on its own, from any w and
 * d, not again for every state a caller brings to the loop (inlined in the
 * callback, it made ~90% of the socket programs' verified instructions, and
 * seconds of the recorder's start: docs/bench.md, "The verifier's budget").
 */
__noinline long h2_walk_step(struct h2_walk *w, struct h2_dir *d)
{
	struct h2_hdr fr;
	__u32 off, n, have;
	int r;

	if (!w || !d)
		return 1;
	/* A header block is read before the next frame's header: it lies before it. */
	if (w->blk_open)
		return h2_block_step(w, d);
	r = h2_step(d, w->start, w->end, &off, &n);
	if (r == H2_STEP_DONE)
		return 1;
	if (r == H2_STEP_GAP) {
		w->why = VPR_H2_LOST_GAP;
		return 1;
	}
	/* Buffers are walked in order: the walk's bytes only move forward. */
	if ((__u64)off >= (__u64)w->buf_off + w->buf_len) {
		if (!h2_next_buf(w))
			w->why = VPR_H2_LOST_UNREADABLE;
		return w->why ? 1 : 0;
	}
	if ((__u64)n > (__u64)w->buf_off + w->buf_len - off)
		n = w->buf_off + w->buf_len - off;
	have = d->have;
	/* Bounded where the verifier sees it: hdr + have + n stays in hdr[24]. */
	n &= 15;
	if (have >= H2_FRAME_HDR_LEN || n == 0 || n > H2_FRAME_HDR_LEN) {
		w->why = VPR_H2_LOST_IMPLAUSIBLE;
		return 1;
	}
	/* Or the compiler may compute with n from before the checks. */
	barrier_var(n);
	if (bpf_probe_read_user(d->hdr + have, n, (const void *)(w->buf + (off - w->buf_off)))) {
		w->why = VPR_H2_LOST_UNREADABLE;
		return 1;
	}
	r = h2_took(d, n, &fr);
	if (r == H2_TOOK_IMPLAUSIBLE) {
		w->why = VPR_H2_LOST_IMPLAUSIBLE;
		return 1;
	}
	if (r == H2_TOOK_FRAME) {
		h2_emit(w, d, &fr, VPR_H2_HEADER, 0);
		if (w->capture && (fr.type == H2_HEADERS || fr.type == H2_CONTINUATION ||
				   (fr.type == H2_DATA && fr.len)))
			h2_block_begin(w, d, &fr, off + n);
	}
	return 0;
}

/*
 * The bpf_loop() callback's context: the walk, memory the step may
 * overwrite (the verifier forgets what it knew of it after each call,
 * which makes the loop's states meet at once), and its direction.
 */
struct h2_loop {
	struct h2_walk *w;
	struct h2_dir *d;
};

static long h2_walk_cb(__u64 index, void *ctx)
{
	struct h2_loop *l = ctx;

	/* The verifier wants 0 or 1 from a callback, and knows nothing of a global's value. */
	return h2_walk_step(l->w, l->d) ? 1 : 0;
}

/*
 * The frame headers inside an operation of a followed connection's
 * direction, whose bytes are o's.  kind and data are the caller's buffer if
 * the caller looked for it (USER_DATA_NONE: not looked for, or none),
 * found here when a header needs reading (o->sk's syscall; NULL: no
 * syscall to look in).  space: 0, or VPR_H2_IN_TLS when the bytes are a
 * TLS connection's plaintext.
 */
static __always_inline void h2_walk_op(struct h2_sock *s, const struct h2_owner *o, __u8 dir,
				       __u64 pid_tgid, __u64 cookie, __u64 ts, __u32 start,
				       __u32 end, __u32 kind, __u64 data, bool capture, __u8 space)
{
	struct h2_dir *d = &s->d[dir & 1];
	struct h2_walk w = {};
	struct h2_loop l = {.w = &w, .d = d};
	__u32 off, n;
	int r;

	if (d->mode != H2_TRACK)
		return;
	w.space = space;
	w.cookie = cookie;
	w.ts = ts;
	w.tid = (__u32)pid_tgid;
	w.pid = pid_tgid >> 32;
	w.capture = capture;
	w.start = start;
	w.end = end;
	w.dir = dir;
	/* Most operations of a busy connection lie inside one DATA payload. */
	r = h2_step(d, start, end, &off, &n);
	if (r == H2_STEP_READ || d->carry) {
		if (kind == USER_DATA_NONE)
			kind = current_call_data(o->sk, dir, &data);
		kind = user_data_unwrap(kind, &data);
		w.kind = kind;
		w.arg = data;
		if (kind == USER_DATA_NONE && r == H2_STEP_READ)
			w.why = VPR_H2_LOST_UNREADABLE;
	}
	/* Before the operation's frames: its first bytes are the block's. */
	if (d->carry)
		h2_block_resume(&w, d, o);
	if (r == H2_STEP_GAP)
		w.why = VPR_H2_LOST_GAP;
	if (!w.why && r == H2_STEP_READ) {
		bpf_loop(H2_MAX_STEPS, h2_walk_cb, &l, 0);
		/* Out of steps inside a block: what was read of it. */
		if (w.blk_open)
			h2_block_end(&w, d);
		if (!w.why && h2_step(d, start, end, &off, &n) != H2_STEP_DONE)
			w.why = VPR_H2_LOST_TOO_MANY;
	}
	/* A block that goes on past the operation: carried, or (the walk lost) cut. */
	if (w.blk_carry) {
		if (w.why)
			h2_block_end(&w, d);
		else
			h2_block_park(&w, d, o);
	}
	if (w.why) {
		h2_emit(&w, d, NULL, VPR_H2_LOST, w.why);
		d->mode = H2_LOST;
	}
}

/*
 * An operation that begins its stream with the client preface
 * (VPR_OP_H2_PREFACE), or with what may be the server's SETTINGS
 * (EARLY_H2_SETTINGS: sent by a server, received by a client): the socket
 * is followed from here.  The other direction's walk starts at its
 * stream's first byte (stream_start.h): bytes it already carried show up
 * as a gap at its next operation.
 */
static __always_inline void h2_begin(struct sock *sk, struct tcp_sock *tp, __u8 dir, __u32 start,
				     bool preface)
{
	struct h2_sock *s = bpf_sk_storage_get(&h2_socks, sk, 0, 0);
	__u32 other_first;

	/* Followed already: the operation may decide a trusted walk (h2_op()). */
	if (s)
		return;
	if (dir == VPR_DIR_SEND) {
		/*
		 * The server's SETTINGS is trusted until the client's first bytes
		 * are read; read already (and no preface, or the walk would have
		 * begun there), they make this no HTTP/2 connection.
		 */
		if (!preface && tp->copied_seq != tp->rcv_nxt - (__u32)tp->bytes_received)
			return;
		other_first = tp->rcv_nxt - (__u32)tp->bytes_received;
	} else if (preface) {
		/*
		 * The socket's first sent byte: a server's, or a connected
		 * socket's whose peer is the HTTP/2 client (one past snd_una less
		 * bytes_acked there, stream_start.h).
		 */
		other_first =
			send_stream_start(tp->snd_una, tp->bytes_acked, sk->sk_max_ack_backlog);
	} else {
		/*
		 * A client that read the server's SETTINGS first: its preface
		 * is to come at the next byte it writes, or it already sent
		 * something else, and this is no HTTP/2.
		 */
		other_first = tp->write_seq;
		if (!send_starts_stream(send_lead(other_first, tp->snd_una, tp->bytes_acked),
					sk->sk_max_ack_backlog))
			return;
	}
	s = bpf_sk_storage_get(&h2_socks, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		/* Nowhere to say where: the operation's own preface flag says the rest. */
		count_lost(1);
		return;
	}
	h2_begin_walks(&s->d[dir & 1], &s->d[(dir & 1) ^ 1], preface, start, other_first);
	s->confirmed = preface;
	s->trusted = dir;
	h2_active = 1;
}

/*
 * Whether an operation's bytes are HTTP/2 frames followed, or begin them
 * (early_bits: its early_flags()): with --capture their header blocks are
 * captured apart and redacted as HPACK, and the operation's own first bytes
 * are not (a block in them would reach the file unredacted).
 */
static __always_inline bool h2_followed(struct sock *sk, __u32 early_bits)
{
	if (early_bits & (VPR_OP_H2_PREFACE | EARLY_H2_SETTINGS))
		return true;
	return h2_may_follow(sk) && bpf_sk_storage_get(&h2_socks, sk, 0, 0);
}

/*
 * Socket operations of a followed connection.  early_bits: the operation's
 * early_flags() (0 if not early); at_start: it begins its stream.
 */
static __always_inline void h2_op(struct sock *sk, struct tcp_sock *tp, __u8 dir, __u32 early_bits,
				  bool at_start, __u64 pid_tgid, __u64 cookie, __u64 ts,
				  __u32 start, __u32 end, __u32 kind, __u64 data, bool capture)
{
	struct h2_owner owner = {.sk = sk};
	struct h2_sock *s;

	if (early_bits & (VPR_OP_H2_PREFACE | EARLY_H2_SETTINGS))
		h2_begin(sk, tp, dir, start, early_bits & VPR_OP_H2_PREFACE);
	if (!h2_may_follow(sk))
		return;
	s = bpf_sk_storage_get(&h2_socks, sk, 0, 0);
	if (!s)
		return;
	/* A walk begun on trust: an operation that begins its stream may decide it. */
	if (!s->confirmed) {
		int v = h2_trust_decide(s->trusted, dir, at_start, early_bits & VPR_OP_H2_PREFACE);

		/* Followed on the server's SETTINGS; the client did not begin with the preface. */
		if (v == H2_TRUST_DROPPED) {
			bpf_sk_storage_delete(&h2_socks, sk);
			return;
		}
		s->confirmed = v == H2_TRUST_CONFIRMED;
	}
	h2_walk_op(s, &owner, dir, pid_tgid, cookie, ts, start, end, kind, data, capture, 0);
}

#endif /* VPATH_H2_FRAMES_H */
