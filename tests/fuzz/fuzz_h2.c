// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the recorder's HTTP/2 frame walk, the BPF code itself
 * (bpf/h2.h, bpf/h2_frames.h, and bpf/stream_start.h's first-bytes check)
 * compiled in user space over stubs of the BPF helpers, fed one socket's
 * operations in both directions as send and recv deliver them: plain
 * buffers, iovec arrays, msghdrs, operations the recorder never saw,
 * operations whose buffer it cannot find, and floods of frames in one
 * operation.  Checked against what the walk promises, not only for memory
 * errors (ASan/UBSan; every helper read must lie inside the operation's own
 * bytes or iovec array, every write into a header buffer inside hdr[24]):
 *   - every header reported lies inside the bytes seen (all 9 of them in
 *     operations the recorder saw), at increasing positions, and is the one
 *     a simple reference walk over the whole stream finds next (frames are
 *     a 9-byte header with a 24-bit length; the client's stream begins
 *     with the 24-byte preface), with the same fields;
 *   - after an operation the walk still follows, it has reported every
 *     reference header that ends inside the bytes so far, and its next
 *     position lies past the operation (the walk kept up within its
 *     H2_MAX_STEPS; otherwise it must have said TOO_MANY);
 *   - a LOST record says a true reason (GAP: bytes before the operation
 *     were never walked; UNREADABLE: the buffer was not to be had;
 *     TOO_MANY: the step bound was reached; IMPLAUSIBLE: the 9 bytes at its
 *     position were seen and are no header a peer may send), comes once,
 *     and nothing more is reported for that direction;
 *   - with capture on (--capture), every HEADERS and CONTINUATION header
 *     reported, and every DATA header of a frame with a payload, is
 *     followed by its block's record (VPR_PAYLOAD_H2_FRAME; DATA's flagged
 *     H2_DATA only, never FIRST nor BROKEN, nor counted in their order):
 *     the stream's own bytes from the frame's first, as many as the
 *     capture length, the frame and the operations hold (the one with the
 *     header and, carried over, the first buffer of the direction's next
 *     ones while each begins where the last ended, its buffer is found and
 *     the last had no other), its size the
 *     frame's, its thread and stamp the frame record's, flagged FIRST on
 *     the direction's first and BROKEN once an earlier one was not whole.
 *     It comes in the operation with the header, or (carried) before any
 *     other record of the direction's next operation the recorder sees,
 *     and not at all when that comes more than H2_CARRY_NS after the
 *     header's or the socket stops being followed (the block is dropped,
 *     and counts as not whole).
 *   - inside TLS (the walk bpf/tls.h runs on libssl's plaintext: one plain
 *     buffer a call, no socket, its blocks carried in a map by the SSL
 *     object's key), the same, every record marked VPR_H2_IN_TLS.
 *
 * Input: 3 bytes of set-up, then operations:
 *   byte 0: bit 0 the socket was accepted (else connected: its send counters
 *           are one behind the first byte, stream_start.h), bit 1 sequence
 *           numbers start just below 2^32, bits 2-3 the capture: off, 256
 *           bytes, 64, or 9 + (byte 1 & 63), bit 4 operations 150 ms apart
 *           (else 1 us: two apart, a carried block is too late), bit 5
 *           inside TLS: each operation one plain buffer (iovecs and
 *           operations missed or without a buffer become one), the walks
 *           begun at the client's preface as bpf/tls.h begins them; bytes
 *           1, 2: the low bits of the send and receive streams' first
 *           sequence numbers.
 *   an operation: a control byte: bit 7 the direction (1 receive), bits 5-6
 *           how (0 a buffer, 1 iovecs, 2 a msghdr's iovecs, 3 special),
 *           bits 0-4 the length - 1 (31: a byte follows, length 32 + 8 *
 *           byte); iovecs: a byte k, then k & 3 sizes of iovecs, and one
 *           more that takes the rest, with (k >> 2 & 7) bytes of room to spare;
 *           special: a byte s: s & 3 = 0 an operation the recorder missed,
 *           1 one whose buffer it cannot find, 2 the operation's bytes
 *           repeated 8 * (1 + (s >> 2)) times in one buffer, 3 a buffer
 *           the helper fails to read; then the operation's bytes.
 * Seeds (tests/fuzz/corpus/fuzz_h2/) are h2c exchanges cut into operations
 * (tests/fuzz/h2_seed.py).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/bpf.h>
#include <linux/types.h>

#include "vpath/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- what vpath.bpf.c gives the headers, as stubs ---- */

#define SEC(name)
#define __uint(name, val) int(*name)[val]
#define __type(name, val) __typeof__(val) *name
#define barrier_var(var) __asm__ volatile("" : "+r"(var))

struct sock {
	__u32 sk_max_ack_backlog; /* an accepted socket's is its listener's, a connected one's 0 */
	void *sk_bpf_storage;	  /* non-NULL while any BPF storage is attached (h2_may_follow) */
};

/* The counters h2_begin() reads. */
struct tcp_sock {
	__u32 rcv_nxt, copied_seq, snd_una, write_seq;
	__u64 bytes_received, bytes_acked;
};

struct user_msghdr {
	void *msg_name;
	int msg_namelen;
	struct iovec *msg_iov;
	__u64 msg_iovlen;
	void *msg_control;
	__u64 msg_controllen;
	unsigned int msg_flags;
};

static long bpf_probe_read_user(void *dst, __u32 n, const void *src);
static long bpf_probe_read_kernel(void *dst, __u32 n, const void *src);
static void *bpf_map_lookup_elem(void *map, const void *key);
static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags);
static void *bpf_ringbuf_reserve(void *map, __u64 size, __u64 flags);
static void bpf_ringbuf_discard(void *rec, __u64 flags);
/* capture.h's, set per input. */
static __u32 capture_len;
#define CAPTURE_ROOM ((capture_len + 8) & ~7u)
static int events;
static void *bpf_sk_storage_get(void *map, struct sock *sk, void *value, __u64 flags);
static long bpf_sk_storage_delete(void *map, struct sock *sk);
static long bpf_loop(__u32 nr, long (*cb)(__u64 index, void *ctx), void *ctx, __u64 flags);
static void *ring_reserve(__u32 size);
static void ring_submit(void *rec);
static void count_lost(__u32 n);
static __u32 current_call_data(struct sock *sk, __u8 dir, __u64 *data);

static void fill_hdr(struct vpr_hdr *h, __u16 type, __u16 size, __u32 tid, __u64 ts)
{
	h->type = type;
	h->size = size;
	h->tid = tid;
	h->ts_ns = ts;
}

#include "../../bpf/stream_start.h"
#include "../../bpf/h2_frames.h"

/* bpf/tls.h's tls_carries, and the key its walk gives (the SSL object's). */
static int tls_carries;
static const __u64 tls_key = 0x5511;

/* ---- the connection ---- */

#define STREAM_MAX (256 * 1024) /* bytes per direction; the rest of an input is ignored */
#define OPS_MAX 1024
#define IOV_MAX_N 4

enum how {
	HOW_BUF,
	HOW_IOVEC,
	HOW_MSGHDR,
	HOW_MISSED,
	HOW_NO_BUFFER,
	HOW_READ_FAILS
};

struct op {
	__u8 dir;
	__u8 how;
	__u32 at, len; /* its bytes in its direction's stream */
	__u32 niov;
	__u32 iov_len[IOV_MAX_N + 1];
	__u32 spare; /* room past the bytes in the last iovec */
};

/* A frame header the reference walk found. */
struct ref {
	__u32 at;
	struct h2_hdr h;
};

static struct {
	__u8 *bytes[2]; /* each direction's whole stream */
	__u8 *seen[2];	/* 1: the byte went by in an operation the recorder saw */
	__u32 len[2];	/* bytes in the stream */
	__u32 base[2];	/* sequence number of its first byte */
	__u32 done[2];	/* bytes delivered so far */
	__u32 began[2]; /* bytes delivered when the walk began (~0: not yet) */
	struct ref *refs[2];
	__u32 nrefs[2];
	__u32 reported[2]; /* headers reported */
	bool lost[2];
	bool accepted;
	bool tls; /* inside TLS (bit 5 of byte 0) */
	struct op ops[OPS_MAX];
	__u32 nops;
	/* The operation being walked. */
	const struct op *cur;
	__u8 *pieces[IOV_MAX_N + 1]; /* its bytes, each buffer a heap block of its own */
	struct iovec *iov;	     /* its iovec array, likewise */
	struct user_msghdr *msg;
	__u32 steps;
	struct h2_sock *storage; /* the socket's, or NULL */
	struct h2_carry *carry;	 /* its carried blocks' (h2_carries), or NULL */
	__u64 ts, ts_step;	 /* the operation's stamp; and from one to the next */
	__u32 tid;		 /* the operation's thread */
	struct vpr_h2_frame *rec;
	/* Header blocks (capture on). */
	struct vpr_payload *blk;     /* the ring's room for one */
	struct h2_block_buf *blkbuf; /* the walk's scratch */
	bool block_due[2]; /* a HEADERS or CONTINUATION header was reported, no block yet */
	/* The due block's: its frame record's stamp and thread. */
	__u64 blk_ts[2];
	__u32 blk_tid[2];
	/* Where its bytes the recorder could read end; frozen: no later operation adds to them. */
	__u32 blk_reach[2];
	bool blk_frozen[2];
	__u32 blocks[2];  /* blocks written */
	bool cut[2];	  /* one of them was not whole */
	bool due_data[2]; /* the record due is a DATA frame's: outside the blocks' order */
} C;

static void fail(const char *what, unsigned dir, unsigned long long a, unsigned long long b)
{
	fprintf(stderr, "fuzz_h2: %s (direction %u: %llu, %llu)\n", what, dir, a, b);
	abort();
}

static void check(bool ok, const char *what, unsigned dir, unsigned long long a,
		  unsigned long long b)
{
	if (!ok)
		fail(what, dir, a, b);
}

static bool in_block(const void *p, __u32 n, const void *block, size_t size)
{
	const __u8 *a = p, *b = block;

	return b && a >= b && n <= size && (size_t)(a - b) <= size - n;
}

static long bpf_probe_read_user(void *dst, __u32 n, const void *src)
{
	const struct op *o = C.cur;
	bool ok = in_block(src, n, C.iov, o->niov * sizeof(*C.iov)) ||
		  in_block(src, n, &C.msg->msg_iov, sizeof(C.msg->msg_iov));

	for (__u32 i = 0; i < o->niov && !ok; i++)
		/* The bytes the operation carried, never the room past them. */
		ok = in_block(src, n, C.pieces[i],
			      o->iov_len[i] - (i == o->niov - 1 ? o->spare : 0));
	check(ok, "a read outside the operation's buffers", o->dir, n, 0);
	/* Into a header buffer: inside hdr[24] (ASan sees only the whole struct). */
	if (C.storage && in_block(dst, 1, C.storage, sizeof(*C.storage))) {
		bool inside = false;

		for (int d = 0; d < 2; d++)
			inside |=
				in_block(dst, n, C.storage->d[d].hdr, sizeof(C.storage->d[d].hdr));
		check(inside, "a write outside hdr[]", o->dir, n, 0);
	}
	if (o->how == HOW_READ_FAILS && in_block(src, 1, C.pieces[0], o->iov_len[0]))
		return -EFAULT;
	memcpy(dst, src, n);
	return 0;
}

static void *bpf_sk_storage_get(void *map, struct sock *sk, void *value, __u64 flags)
{
	if (map == &h2_carries) {
		check(C.storage != NULL, "a carry without a followed socket", 0, 0, 0);
		if (!C.carry && (flags & BPF_SK_STORAGE_GET_F_CREATE)) {
			C.carry = malloc(sizeof(*C.carry));
			if (!C.carry)
				abort();
			/* The kernel's is zeroed; this one is not, so that nothing relies on it. */
			memset(C.carry, 0xa5, sizeof(*C.carry));
		}
		if (C.carry)
			sk->sk_bpf_storage = C.carry;
		return C.carry;
	}
	check(map == &h2_socks, "storage of an unknown map", 0, 0, 0);
	if (!C.storage && (flags & BPF_SK_STORAGE_GET_F_CREATE)) {
		C.storage = calloc(1, sizeof(*C.storage));
		if (!C.storage)
			abort();
		/* The bytes each direction carried before: the operation's own are walked. */
		for (unsigned d = 0; d < 2; d++)
			C.began[d] = C.cur && C.cur->dir == d ? C.cur->at : C.done[d];
	}
	sk->sk_bpf_storage = C.storage ? (void *)C.storage : (void *)C.carry;
	return C.storage;
}

static long bpf_sk_storage_delete(void *map, struct sock *sk)
{
	check(map == &h2_socks, "storage of an unknown map deleted", 0, 0, 0);
	free(C.storage);
	C.storage = NULL;
	sk->sk_bpf_storage = C.carry; /* the kernel's list keeps the carry's */
	/* No longer followed: a carried block is dropped. */
	for (int d = 0; d < 2; d++) {
		if (C.block_due[d]) {
			C.block_due[d] = false;
			C.cut[d] |= !C.due_data[d];
			C.blocks[d] += !C.due_data[d];
		}
	}
	return 0;
}

static long bpf_loop(__u32 nr, long (*cb)(__u64 index, void *ctx), void *ctx, __u64 flags)
{
	__u32 i = 0;

	while (i < nr) {
		C.steps++;
		if (cb(i++, ctx))
			break;
	}
	return i;
}

/* The block's scratch to its record or its carry, or its carry back to the scratch. */
static long bpf_probe_read_kernel(void *dst, __u32 n, const void *src)
{
	bool scratch_src = in_block(src, n, C.blkbuf, sizeof(*C.blkbuf)),
	     scratch_dst = in_block(dst, n, C.blkbuf, sizeof(*C.blkbuf)), carry_src = false,
	     carry_dst = false;

	for (int d = 0; d < 2 && C.carry; d++) {
		carry_src |= in_block(src, n, C.carry->d[d].b, sizeof(C.carry->d[d].b));
		carry_dst |= in_block(dst, n, C.carry->d[d].b, sizeof(C.carry->d[d].b));
	}
	check((scratch_src && (in_block(dst, n, C.blk->data, CAPTURE_ROOM) || carry_dst)) ||
		      (carry_src && scratch_dst),
	      "a block copied from or to outside its buffers", 0, n, 0);
	memcpy(dst, src, n);
	return 0;
}

static void *bpf_map_lookup_elem(void *map, const void *key)
{
	static struct h2_carry fresh;

	if (map == &tls_carries) {
		check(C.tls && key == &tls_key, "a carry looked up by another key", 0, 0, 0);
		return C.carry;
	}
	if (map == &h2_carry_fresh) {
		check(C.tls, "a fresh carry for a socket", 0, 0, 0);
		/* The kernel's is whatever was there: nothing may rely on it. */
		memset(&fresh, 0xa5, sizeof(fresh));
		return &fresh;
	}
	check(map == &h2_block_bufs, "a lookup in an unknown map", 0, 0, 0);
	return C.blkbuf;
}

static long bpf_map_update_elem(void *map, const void *key, const void *value, __u64 flags)
{
	check(map == &tls_carries && key == &tls_key && flags == BPF_NOEXIST && !C.carry &&
		      C.storage != NULL,
	      "a carry made where it should not be", 0, 0, 0);
	C.carry = malloc(sizeof(*C.carry));
	if (!C.carry)
		abort();
	memcpy(C.carry, value, sizeof(*C.carry));
	return 0;
}

static void *bpf_ringbuf_reserve(void *map, __u64 size, __u64 flags)
{
	check(size == VPR_PAYLOAD_HDR_SIZE + CAPTURE_ROOM, "a block record of another size", 0,
	      size, 0);
	memset(C.blk, 0xff, sizeof(*C.blk));
	return C.blk;
}

static void bpf_ringbuf_discard(void *rec, __u64 flags)
{
	fail("a block record discarded", 0, 0, 0);
}

static void *ring_reserve(__u32 size)
{
	check(size == sizeof(*C.rec), "a record of another size", 0, size, 0);
	memset(C.rec, 0xff, sizeof(*C.rec));
	return C.rec;
}

static void count_lost(__u32 n)
{
}

static __u32 current_call_data(struct sock *sk, __u8 dir, __u64 *data)
{
	const struct op *o = C.cur;

	switch (o->how) {
	case HOW_IOVEC:
		*data = (__u64)C.iov;
		return USER_DATA_IOVEC;
	case HOW_MSGHDR:
		*data = (__u64)C.msg;
		return USER_DATA_MSGHDR;
	case HOW_NO_BUFFER:
		return USER_DATA_NONE;
	default:
		*data = (__u64)C.pieces[0];
		return USER_DATA_BUF;
	}
}

/* ---- the reference walk: whole streams, no cuts ---- */

static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/*
 * Headers one after the other from the first, which is past the preface in
 * the client's stream: the stream whose first bytes are the preface's
 * request line (all the recorder looks for, H2_PREFACE_MIN).
 */
static void reference_walk(unsigned d)
{
	__u32 at = 0, n = 0;

	if (C.len[d] >= H2_PREFACE_MIN && !memcmp(C.bytes[d], preface, H2_PREFACE_MIN))
		at = H2_PREFACE_LEN;
	while ((__u64)at + H2_FRAME_HDR_LEN <= C.len[d]) {
		const __u8 *h = C.bytes[d] + at;
		struct ref *r = &C.refs[d][n++];

		r->at = at;
		r->h.len = (__u32)h[0] << 16 | (__u32)h[1] << 8 | h[2];
		r->h.type = h[3];
		r->h.flags = h[4];
		r->h.stream_id = ((__u32)h[5] << 24 | (__u32)h[6] << 16 | (__u32)h[7] << 8 | h[8]) &
				 0x7fffffff;
		at += H2_FRAME_HDR_LEN + r->h.len;
	}
	C.nrefs[d] = n;
}

/* Reference headers whose 9 bytes end by stream offset end. */
static __u32 refs_by(unsigned d, __u32 end)
{
	__u32 n = 0;

	while (n < C.nrefs[d] && C.refs[d][n].at + H2_FRAME_HDR_LEN <= end)
		n++;
	return n;
}

static bool all_seen(unsigned d, __u32 at, __u32 n)
{
	if ((__u64)at + n > C.done[d])
		return false;
	for (__u32 i = 0; i < n; i++)
		if (!C.seen[d][at + i])
			return false;
	return true;
}

/* A header block's record: the stream's bytes of the frame just reported. */
static void block_submitted(const struct vpr_payload *p)
{
	const struct op *o = C.cur;
	unsigned d = p->dir;
	const struct ref *ref;
	__u32 at, want, end;

	check(d == o->dir && C.block_due[d], "a block record without its header", d, 0, 0);
	C.block_due[d] = false;
	end = C.blk_reach[d];
	ref = &C.refs[d][C.reported[d] - 1];
	at = p->seq_end - p->bytes - C.base[d];
	check(at == ref->at && p->bytes == H2_FRAME_HDR_LEN + ref->h.len && p->cookie == 42 &&
		      p->h.size == VPR_PAYLOAD_SIZE(p->len) && p->pid == 7,
	      "a block record's frame", d, at, ref->at);
	check(p->h.ts_ns == C.blk_ts[d] && p->h.tid == C.blk_tid[d],
	      "a block record not stamped like its frame's", d, p->h.ts_ns, C.blk_ts[d]);
	want = p->bytes < capture_len ? p->bytes : capture_len;
	if ((__u64)at + want > end)
		want = end - at;
	/* Cut short only where the helper fails a read, or the walk ran out of steps. */
	check(p->len == want || ((o->how == HOW_READ_FAILS || C.steps >= H2_MAX_STEPS) &&
				 p->len < want && p->len >= 9),
	      "a block record's length", d, p->len, want);
	check(!memcmp(p->data, C.bytes[d] + at, p->len), "a block record's bytes", d, at, p->len);
	/* A DATA frame's first bytes: no header block, in no block's order. */
	if (C.due_data[d]) {
		check(p->flags == (VPR_PAYLOAD_H2_FRAME | VPR_PAYLOAD_H2_DATA),
		      "a DATA record's flags", d, p->flags, 0);
		return;
	}
	check((p->flags & ~(VPR_PAYLOAD_H2_FRAME | VPR_PAYLOAD_H2_FIRST | VPR_PAYLOAD_H2_BROKEN)) ==
			      0 &&
		      !(p->flags & VPR_PAYLOAD_H2_FIRST) == (C.blocks[d] != 0) &&
		      !(p->flags & VPR_PAYLOAD_H2_BROKEN) == !C.cut[d] &&
		      (p->flags & VPR_PAYLOAD_H2_FRAME),
	      "a block record's flags", d, p->flags, C.blocks[d]);
	C.blocks[d]++;
	C.cut[d] |= p->len < p->bytes;
}

/* A record the walk wrote, checked as it is written. */
static void ring_submit(void *rec)
{
	const struct vpr_h2_frame *r = rec;
	const struct op *o = C.cur;
	unsigned d = r->dir;
	__u32 at = r->seq - C.base[d];
	__u8 kind = r->kind & ~VPR_H2_IN_TLS;

	if (r->h.type == VPR_PAYLOAD) {
		block_submitted(rec);
		return;
	}
	check(!C.block_due[d], "a header block not written", d, at, 0);

	check(d == o->dir, "a record for the other direction", d, o->dir, 0);
	check(r->cookie == 42 && r->h.type == VPR_H2_FRAME, "a record's fields", d, r->cookie, 0);
	check(!(r->kind & VPR_H2_IN_TLS) == !C.tls, "a record not marked as its walk's", d, r->kind,
	      0);
	check(!C.lost[d], "a record after LOST", d, r->kind, at);
	if (kind == VPR_H2_HEADER) {
		const struct ref *ref;

		check(at < C.len[d] && all_seen(d, at, H2_FRAME_HDR_LEN),
		      "a header outside the bytes seen", d, at, C.done[d]);
		check(C.reported[d] < C.nrefs[d], "more headers than the stream has", d, at,
		      C.nrefs[d]);
		ref = &C.refs[d][C.reported[d]];
		check(at == ref->at, "a header where the reference walk has none", d, at, ref->at);
		check(r->length == ref->h.len && r->type == ref->h.type &&
			      r->flags == ref->h.flags && r->stream_id == ref->h.stream_id,
		      "a header's fields", d, at, r->length);
		C.reported[d]++;
		C.due_data[d] = ref->h.type == H2_DATA;
		C.block_due[d] = capture_len >= H2_FRAME_HDR_LEN &&
				 (ref->h.type == H2_HEADERS || ref->h.type == H2_CONTINUATION ||
				  (ref->h.type == H2_DATA && ref->h.len));
		C.blk_ts[d] = r->h.ts_ns;
		C.blk_tid[d] = r->h.tid;
		C.blk_reach[d] = o->at + o->len;
		C.blk_frozen[d] = false;
		return;
	}
	check(kind == VPR_H2_LOST, "a record of an unknown kind", d, r->kind, 0);
	C.lost[d] = true;
	switch (r->type) {
	case VPR_H2_LOST_GAP: {
		__u32 p = at + (C.storage ? C.storage->d[d & 1].have : 0);
		bool gap = p < C.began[d];

		for (__u32 i = p; i < o->at && !gap; i++)
			gap = !C.seen[d][i];
		check(p < o->at && gap, "GAP without unseen bytes before the operation", d, p,
		      o->at);
		break;
	}
	case VPR_H2_LOST_UNREADABLE:
		check(o->how == HOW_NO_BUFFER || o->how == HOW_READ_FAILS,
		      "UNREADABLE from a readable buffer", d, o->how, 0);
		break;
	case VPR_H2_LOST_TOO_MANY:
		check(C.steps >= H2_MAX_STEPS, "TOO_MANY within the step bound", d, C.steps, 0);
		break;
	case VPR_H2_LOST_IMPLAUSIBLE: {
		struct h2_hdr fr;

		check(at < C.len[d] && all_seen(d, at, H2_FRAME_HDR_LEN),
		      "IMPLAUSIBLE at bytes not seen", d, at, C.done[d]);
		h2_parse(C.bytes[d] + at, r->seq, &fr);
		check(!h2_plausible(&fr), "IMPLAUSIBLE for a plausible header", d, at, fr.len);
		/* Where the reference has its next header, or (no header yet) a walk begun elsewhere. */
		check(C.reported[d] == 0 ||
			      (C.reported[d] < C.nrefs[d] && C.refs[d][C.reported[d]].at == at),
		      "IMPLAUSIBLE off the reference walk", d, at, C.reported[d]);
		break;
	}
	default:
		fail("LOST for an unknown reason", d, r->type, 0);
	}
}

/* ---- the input ---- */

static __u8 byte_at(const uint8_t *data, size_t size, size_t *pos)
{
	return *pos < size ? data[(*pos)++] : 0;
}

/* Cuts the input into operations and the two streams. */
static void parse(const uint8_t *data, size_t size)
{
	size_t pos = 3;

	while (pos < size && C.nops < OPS_MAX) {
		struct op *o = &C.ops[C.nops];
		__u8 ctl = byte_at(data, size, &pos), how = ctl >> 5 & 3, s = 0, k = 0;
		__u32 len = (ctl & 31) + 1, reps = 1, avail;
		__u32 sizes[IOV_MAX_N];

		memset(o, 0, sizeof(*o));
		o->dir = ctl >> 7;
		if (len == 32)
			len = 32 + 8 * (__u32)byte_at(data, size, &pos);
		o->how = how == 1 ? HOW_IOVEC : how == 2 ? HOW_MSGHDR : HOW_BUF;
		if (how == 1 || how == 2) {
			k = byte_at(data, size, &pos);
			for (int i = 0; i < (k & 3); i++)
				sizes[i] = byte_at(data, size, &pos);
		} else if (how == 3) {
			s = byte_at(data, size, &pos);
			o->how = (const __u8[]){HOW_MISSED, HOW_NO_BUFFER, HOW_BUF,
						HOW_READ_FAILS}[s & 3];
			if ((s & 3) == 2)
				reps = 8 * (1 + (s >> 2));
		}
		avail = size - pos < len ? (__u32)(size - pos) : len;
		if (avail == 0 || (__u64)C.len[o->dir] + (__u64)avail * reps > STREAM_MAX)
			break;
		for (__u32 r = 0; r < reps; r++)
			memcpy(C.bytes[o->dir] + C.len[o->dir] + r * avail, data + pos, avail);
		pos += avail;
		o->at = C.len[o->dir];
		/*
		 * A stream's first operation is always seen: the walk begins, is
		 * confirmed or is dropped there (bpf/h2_frames.h, h2_op()).
		 */
		if (o->at == 0 && o->how == HOW_MISSED)
			o->how = HOW_BUF;
		o->len = avail * reps;
		C.len[o->dir] += o->len;
		/* A libssl call's plaintext: one buffer, always found (a call missed loses the walks). */
		if (C.tls && o->how != HOW_READ_FAILS)
			o->how = HOW_BUF;
		/* The buffers: one, or the iovecs (the last takes the rest, with room to spare). */
		o->niov = 1;
		o->iov_len[0] = o->len;
		if (o->how == HOW_IOVEC || o->how == HOW_MSGHDR) {
			__u32 left = o->len;

			o->niov = 0;
			for (int i = 0; i < (k & 3); i++) {
				__u32 n = sizes[i] < left ? sizes[i] : left;

				o->iov_len[o->niov++] = n;
				left -= n;
			}
			o->spare = k >> 2 & 7;
			o->iov_len[o->niov++] = left + o->spare;
		}
		C.nops++;
	}
}

/*
 * A block carried over from an earlier operation of o's direction: dropped
 * if o comes too late, its bytes growing by o's if o goes on where they end
 * and its buffer is there to read.
 */
static void carried_block(const struct op *o)
{
	unsigned d = o->dir;
	__u32 first;

	if (!C.block_due[d])
		return;
	if (C.ts - C.blk_ts[d] > H2_CARRY_NS) {
		C.block_due[d] = false;
		C.cut[d] |= !C.due_data[d];
		C.blocks[d] += !C.due_data[d];
		return;
	}
	if (C.blk_frozen[d] || o->at != C.blk_reach[d] || o->how == HOW_NO_BUFFER) {
		C.blk_frozen[d] = true;
		return;
	}
	/* The rest is read from the operation's first buffer only. */
	first = o->niov == 1 || o->iov_len[0] > o->len ? o->len : o->iov_len[0];
	C.blk_reach[d] += first;
	C.blk_frozen[d] = first < o->len;
}

/* After o: a block still due goes on past o's bytes, carried. */
static void block_left(const struct op *o)
{
	unsigned d = o->dir;
	const struct ref *ref;
	__u32 want;

	if (!C.block_due[d])
		return;
	ref = &C.refs[d][C.reported[d] - 1];
	want = H2_FRAME_HDR_LEN + ref->h.len < capture_len ? H2_FRAME_HDR_LEN + ref->h.len
							   : capture_len;
	check(C.storage && C.storage->d[d].mode == H2_TRACK && C.storage->d[d].carry &&
		      !C.blk_frozen[d] && C.blk_reach[d] == o->at + o->len &&
		      C.blk_reach[d] - ref->at < want,
	      "a header block not written", d, o->at, ref->at);
}

/* A socket operation, as record_op() in bpf/vpath.bpf.c hands it to h2_op(). */
static void socket_op(const struct op *o, __u32 start, __u32 end)
{
	struct sock sk = {.sk_max_ack_backlog = C.accepted ? 128 : 0,
			  .sk_bpf_storage = C.storage ? (void *)C.storage : (void *)C.carry};
	struct tcp_sock tp;
	unsigned d = o->dir;
	__u32 kind = USER_DATA_NONE, early_bits = 0, offset;
	__u64 data = 0;
	bool at_start;

	/* The kernel's counters: receives' base is the first byte, a connected socket's sends' one before. */
	tp.bytes_received = C.done[VPR_DIR_RECV];
	tp.rcv_nxt = C.base[VPR_DIR_RECV] + C.done[VPR_DIR_RECV];
	tp.copied_seq = tp.rcv_nxt; /* all received is read */
	tp.bytes_acked = C.done[VPR_DIR_SEND] - o->len * (d == VPR_DIR_SEND) + !C.accepted;
	tp.snd_una = C.base[VPR_DIR_SEND] + (__u32)tp.bytes_acked - !C.accepted;
	tp.write_seq = C.base[VPR_DIR_SEND] + C.done[VPR_DIR_SEND]; /* this send's bytes included */
	if (d == VPR_DIR_SEND) {
		__u32 lead = send_lead(start, tp.snd_una, tp.bytes_acked);

		at_start = lead <= 1 && send_starts_stream(lead, sk.sk_max_ack_backlog);
		offset = lead;
	} else {
		offset = recv_offset(start, tp.rcv_nxt, tp.bytes_received);
		at_start = offset == 0;
	}
	if (offset < EARLY_BYTES) {
		if (o->len >= TLS_RECORD_HEADER_LEN)
			kind = current_call_data(&sk, d, &data);
		early_bits = early_flags(at_start, o->len, kind, data);
	}
	h2_op(&sk, &tp, d, early_bits, at_start, 7ull << 32 | C.tid, 42, C.ts, start, end, kind,
	      data, capture_len != 0);
}

/*
 * A libssl call's plaintext, as tls_data() in bpf/tls.h walks it: the walks
 * begin at the client's preface (the first bytes of its stream), the other
 * direction's at its stream's first byte.
 */
static void tls_op(const struct op *o, __u32 start, __u32 end)
{
	struct h2_owner owner = {.carries = &tls_carries, .key = &tls_key};
	__u8 head[H2_PREFACE_LEN] __attribute__((aligned(8))) = {0};
	unsigned d = o->dir;
	__u32 n = o->len < H2_PREFACE_LEN ? o->len : H2_PREFACE_LEN;

	if (!C.storage && o->at == 0 && o->how == HOW_BUF) {
		memcpy(head, C.bytes[d], n);
		if (h2_preface_match(head, n)) {
			C.storage = calloc(1, sizeof(*C.storage));
			if (!C.storage)
				abort();
			for (unsigned k = 0; k < 2; k++)
				C.began[k] = k == d ? 0 : C.done[k];
			h2_begin_walks(&C.storage->d[d], &C.storage->d[d ^ 1], true, start,
				       C.base[d ^ 1]);
		}
	}
	if (C.storage)
		h2_walk_op(C.storage, &owner, d, 7ull << 32 | C.tid, 42, C.ts, start, end,
			   USER_DATA_BUF, (__u64)C.pieces[0], capture_len != 0, VPR_H2_IN_TLS);
}

/* One operation, of a socket or (C.tls) of libssl. */
static void run_op(const struct op *o)
{
	unsigned d = o->dir;
	__u32 start = C.base[d] + o->at, end = start + o->len, from = 0;

	C.done[d] += o->len;
	C.ts += C.ts_step;
	C.tid++;
	if (o->how == HOW_MISSED) {
		C.blk_frozen[d] = true;
		return;
	}
	carried_block(o);
	memset(C.seen[d] + o->at, 1, o->len);
	/* The caller's buffers, each a heap block of its own so that ASan sees their ends. */
	C.cur = o;
	for (__u32 i = 0; i < o->niov; i++) {
		__u32 n = o->iov_len[i] - (i == o->niov - 1 ? o->spare : 0);

		C.pieces[i] = malloc(o->iov_len[i] ? o->iov_len[i] : 1);
		if (!C.pieces[i])
			abort();
		memcpy(C.pieces[i], C.bytes[d] + o->at + from, n);
		memset(C.pieces[i] + n, 0xee, o->iov_len[i] - n);
		from += n;
	}
	C.iov = malloc(o->niov * sizeof(*C.iov));
	C.msg = malloc(sizeof(*C.msg));
	if (!C.iov || !C.msg)
		abort();
	for (__u32 i = 0; i < o->niov; i++)
		C.iov[i] = (struct iovec){C.pieces[i], o->iov_len[i]};
	memset(C.msg, 0, sizeof(*C.msg));
	C.msg->msg_iov = C.iov;
	C.msg->msg_iovlen = o->niov;
	C.steps = 0;
	if (C.tls)
		tls_op(o, start, end);
	else
		socket_op(o, start, end);
	check(C.steps <= H2_MAX_STEPS, "more steps than the bound", d, C.steps, 0);
	block_left(o);
	/* A walk that goes on has kept up: every header up to here, and its place past the operation. */
	if (C.storage && C.storage->d[d].mode == H2_TRACK) {
		__u32 off, n;

		check(!C.lost[d], "LOST written, the walk goes on", d, 0, 0);
		check(h2_step(&C.storage->d[d], start, end, &off, &n) == H2_STEP_DONE,
		      "the walk left the operation unfinished", d, o->at, o->len);
		if (C.began[d] == 0)
			check(C.reported[d] == refs_by(d, o->at + o->len),
			      "headers the walk went past", d, C.reported[d],
			      refs_by(d, o->at + o->len));
	}
	if (C.storage && C.storage->d[d].mode == H2_LOST)
		check(C.lost[d], "lost without a LOST record", d, 0, 0);
	for (__u32 i = 0; i < o->niov; i++)
		free(C.pieces[i]);
	free(C.iov);
	free(C.msg);
	C.iov = NULL;
	C.msg = NULL;
	C.cur = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static __u8 bytes[2][STREAM_MAX], seen[2][STREAM_MAX];
	static struct ref refs[2][STREAM_MAX / H2_FRAME_HDR_LEN + 1];
	static struct vpr_h2_frame rec;
	static struct {
		struct vpr_payload p;
		__u8 room[8];
	} blk;
	static struct h2_block_buf blkbuf;
	__u8 flags = size > 0 ? data[0] : 0;
	const __u32 captures[4] = {0, 256, 64, 9 + ((size > 1 ? data[1] : 0) & 63)};

	memset(&C, 0, sizeof(C));
	for (int d = 0; d < 2; d++) {
		C.bytes[d] = bytes[d];
		C.seen[d] = seen[d];
		C.refs[d] = refs[d];
		C.began[d] = ~0u;
	}
	C.rec = &rec;
	C.blk = &blk.p;
	C.blkbuf = &blkbuf;
	C.ts = 1000000;
	C.ts_step = flags & 16 ? 150000000 : 1000;
	capture_len = captures[flags >> 2 & 3];
	C.accepted = flags & 1;
	C.tls = flags & 32;
	C.base[VPR_DIR_SEND] = ((flags & 2) ? 0xffffff00u : 1000u) + (size > 1 ? data[1] : 0);
	C.base[VPR_DIR_RECV] = ((flags & 2) ? 0xfffffff0u : 5000u) + (size > 2 ? data[2] : 0);
	h2_active = 0;
	parse(data, size);
	for (int d = 0; d < 2; d++)
		reference_walk(d);
	for (__u32 i = 0; i < C.nops; i++)
		run_op(&C.ops[i]);
	free(C.storage);
	C.storage = NULL;
	free(C.carry);
	C.carry = NULL;
#ifdef FUZZ_H2_VERBOSE
	for (int d = 0; d < 2; d++)
		fprintf(stderr, "dir %d: %u ops bytes %u, refs %u, reported %u, lost %d\n", d,
			C.nops, C.len[d], C.nrefs[d], C.reported[d], C.lost[d]);
#endif
	/* Only the bytes used: the next input starts from nothing seen. */
	for (int d = 0; d < 2; d++)
		memset(seen[d], 0, C.len[d]);
	return 0;
}
