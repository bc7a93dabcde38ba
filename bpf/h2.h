/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * HTTP/2 as the recorder sees it (RFC 9113): the client's connection
 * preface, and the 9-byte frame headers that follow it in both directions.
 * Pure logic on bytes already read, so that the BPF side (bpf/h2_frames.h)
 * and the unit test (tests/unit/test_h2.c) run the same code: no helper
 * calls, no maps, fixed-width types only.
 *
 * The walk over one direction of a connection keeps one struct h2_dir: the
 * stream position of the next frame header, and the bytes of a header that
 * an operation ended in the middle of.  An operation's bytes are
 * [start, end) in the stream; h2_step() says which bytes to read next (at
 * most one header's, never a payload's), h2_took() takes them and, when a
 * header is whole, parses it and moves on past its payload.
 */
#ifndef VPATH_H2_H
#define VPATH_H2_H

#include "vpath/record.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define H2_PREFACE_LEN VPR_H2_PREFACE_LEN
/* "PRI * HTTP/2.0\r\n": a request line no HTTP/1.x client sends, enough to decide on. */
#define H2_PREFACE_MIN 16
#define H2_FRAME_HDR_LEN 9
/*
 * Longer frames are taken for a lost cut: RFC 9113 allows up to 2^24-1 after
 * a peer's SETTINGS_MAX_FRAME_SIZE, but peers advertise 16 KiB (Node.js,
 * nginx, gRPC) or 1 MiB (Go's net/http2); the recorder reads no SETTINGS
 * payload, so it holds every peer to the largest common one.
 */
#define H2_FRAME_MAX (1u << 20)
/* A server's first SETTINGS frame carries a few settings (RFC 9113 6.5.2 defines 6). */
#define H2_SETTINGS_FIRST_MAX (6 * 32)
/*
 * A header block that goes on past its operation (bpf/h2_frames.h) is
 * finished in its direction's next operation only if that comes this soon
 * after the frame; later, it is dropped (a reader takes its frame for one
 * whose block was not captured).  Its record bears the frame's stamp, and
 * the recorder writes records out once they are HOLD_NS old
 * (user/recorder.c, 20 ms): one that comes later than that is written out
 * of time order, by at most this, before its operation's own records (a
 * reader looks for it until the direction's next frame: analyzer/h2blocks.h).
 * Go's http2 server writes the rest of a 4 KiB write when its queue runs
 * dry: 12 to 65 ms later on tests/h2's go-h2 under load.
 */
#define H2_CARRY_NS (250 * 1000000ull)

enum h2_frame_type {
	H2_DATA = 0,
	H2_HEADERS = 1,
	H2_PRIORITY = 2,
	H2_RST_STREAM = 3,
	H2_SETTINGS = 4,
	H2_PUSH_PROMISE = 5,
	H2_PING = 6,
	H2_GOAWAY = 7,
	H2_WINDOW_UPDATE = 8,
	H2_CONTINUATION = 9,
};

#define H2_FLAG_ACK 0x01 /* SETTINGS, PING */

/*
 * The preface as three little-endian words ("PRI * HT", "TP/2.0\r\n",
 * "\r\nSM\r\n\r\n"); BPF and the machines vpath runs on are little-endian.
 */
#define H2_PREFACE_W0 0x5448202a20495250ull
#define H2_PREFACE_W1 0x0a0d302e322f5054ull
#define H2_PREFACE_W2 0x0a0d0a0d4d530a0dull

/* One load where b is aligned (the BPF side's buffer is), byte loads elsewhere. */
static __always_inline __u64 h2_le64(const __u8 *b)
{
	__u64 v;

	__builtin_memcpy(&v, b, sizeof(v));
	return v;
}

/* Word i's bytes that lie in the first n, as a mask. */
static __always_inline __u64 h2_mask(__u32 n, __u32 i)
{
	__u32 k = n > 8 * i ? n - 8 * i : 0;

	return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1;
}

/*
 * The first n bytes of buf (24 readable bytes) are the first n of the
 * preface, and n is enough to tell: at least its request line.
 */
static __always_inline bool h2_preface_match(const __u8 *buf, __u32 n)
{
	if (n < H2_PREFACE_MIN)
		return false;
	if (n > H2_PREFACE_LEN)
		n = H2_PREFACE_LEN;
	return ((h2_le64(buf) ^ H2_PREFACE_W0) & h2_mask(n, 0)) == 0 &&
	       ((h2_le64(buf + 8) ^ H2_PREFACE_W1) & h2_mask(n, 1)) == 0 &&
	       ((h2_le64(buf + 16) ^ H2_PREFACE_W2) & h2_mask(n, 2)) == 0;
}

/* A frame header, parsed. */
struct h2_hdr {
	__u32 seq; /* stream position of its first byte */
	__u32 len; /* payload bytes after the header */
	__u32 stream_id;
	__u8 type;
	__u8 flags;
};

static __always_inline void h2_parse(const __u8 *h, __u32 seq, struct h2_hdr *fr)
{
	fr->seq = seq;
	fr->len = (__u32)h[0] << 16 | (__u32)h[1] << 8 | h[2];
	fr->type = h[3];
	fr->flags = h[4];
	/* The reserved bit is ignored on receipt (RFC 9113 4.1). */
	fr->stream_id = ((__u32)h[5] & 0x7f) << 24 | (__u32)h[6] << 16 | (__u32)h[7] << 8 | h[8];
}

/*
 * What a peer cannot send without the other end closing the connection
 * (RFC 9113 section 6: frames on the wrong stream, fixed sizes); a header
 * that breaks it means the walk lost its place.  Extension types pass.
 */
static __always_inline bool h2_plausible(const struct h2_hdr *fr)
{
	if (fr->len > H2_FRAME_MAX)
		return false;
	switch (fr->type) {
	case H2_DATA:
	case H2_HEADERS:
	case H2_PUSH_PROMISE:
	case H2_CONTINUATION:
		return fr->stream_id != 0;
	case H2_PRIORITY:
		return fr->stream_id != 0 && fr->len == 5;
	case H2_RST_STREAM:
		return fr->stream_id != 0 && fr->len == 4;
	case H2_SETTINGS:
		return fr->stream_id == 0 && fr->len % 6 == 0 &&
		       !(fr->flags & H2_FLAG_ACK && fr->len);
	case H2_PING:
		return fr->stream_id == 0 && fr->len == 8;
	case H2_GOAWAY:
		return fr->stream_id == 0 && fr->len >= 8;
	case H2_WINDOW_UPDATE:
		return fr->len == 4;
	default:
		return true;
	}
}

/*
 * A server's connection preface is a SETTINGS frame (RFC 9113 3.4), and
 * servers (Node.js's, gRPC's) may send it before they read the client's:
 * a stream's first send that begins with one starts the walk on trust at
 * the server, and a stream's first receive that begins with one at a client
 * that reads it before it sends its preface (grpc-go, grpcio).
 */
static __always_inline bool h2_server_settings(const __u8 *buf, __u32 n)
{
	struct h2_hdr fr;

	if (n < H2_FRAME_HDR_LEN)
		return false;
	h2_parse(buf, 0, &fr);
	return fr.type == H2_SETTINGS && fr.flags == 0 && fr.stream_id == 0 && fr.len % 6 == 0 &&
	       fr.len <= H2_SETTINGS_FIRST_MAX && buf[5] == 0;
}

enum h2_mode {
	H2_OFF = 0,   /* not followed */
	H2_TRACK = 1, /* next is where the next header begins */
	H2_LOST = 2,  /* a VPR_H2_LOST was written: nothing more on this direction */
};

/* What a direction's captured header blocks were so far (VPR_PAYLOAD_H2_FRAME). */
enum h2_blocks {
	H2_BLOCKS_NONE = 0,   /* none yet: HPACK's dynamic table is empty */
	H2_BLOCKS_WHOLE = 1,  /* every one captured whole */
	H2_BLOCKS_BROKEN = 2, /* one was not: the dynamic table is unknown to a reader */
};

/* One direction of a followed connection (in the socket's storage: bpf/h2_frames.h). */
struct h2_dir {
	__u32 next;  /* stream position of the next frame header's first byte */
	__u8 have;   /* bytes of that header already taken: it began in an earlier operation */
	__u8 mode;   /* enum h2_mode */
	__u8 blocks; /* enum h2_blocks: the header blocks captured (--capture) */
	__u8 carry;  /* a block goes on in the next operation: read so far (bpf/h2_frames.h) */
	/*
	 * The header's bytes.  Room for 9 more past any have < 9, so that a
	 * read at hdr + have of up to 9 bytes stays inside as the verifier
	 * reckons it.
	 */
	__u8 hdr[24];
};

/*
 * Where the walks of a connection begin, from the operation that begins its
 * own direction's stream at start with the client preface (the walk starts
 * past it) or a server's SETTINGS (at its first byte).  The other
 * direction's stream begins at other_first, with frames if this one began
 * with the preface, with the preface to come if not.
 */
static __always_inline void h2_begin_walks(struct h2_dir *own, struct h2_dir *other, bool preface,
					   __u32 start, __u32 other_first)
{
	own->next = start + (preface ? H2_PREFACE_LEN : 0);
	own->mode = H2_TRACK;
	other->next = other_first + (preface ? 0 : H2_PREFACE_LEN);
	other->mode = H2_TRACK;
}

enum h2_trust {
	H2_TRUST_WAIT = 0,	/* not decided yet */
	H2_TRUST_CONFIRMED = 1, /* the client's preface: follow the connection */
	H2_TRUST_DROPPED = 2,	/* something else: not HTTP/2, stop following */
};

/*
 * A walk begun on trust, by a SETTINGS frame that began the stream of
 * direction trusted, is decided by the other direction's first operation
 * (dir, at_start: it begins its stream): the client's preface or not.
 */
static __always_inline int h2_trust_decide(__u8 trusted, __u8 dir, bool at_start, bool preface)
{
	if (!at_start || dir == trusted)
		return H2_TRUST_WAIT;
	return preface ? H2_TRUST_CONFIRMED : H2_TRUST_DROPPED;
}

enum h2_step_result {
	H2_STEP_DONE = 0, /* no header (or rest of one) starts inside the operation */
	H2_STEP_READ = 1, /* read *n bytes at *off of the operation into hdr + have */
	H2_STEP_GAP = 2,  /* bytes before the operation were never walked */
};

/* The next thing to do inside the operation's bytes [start, end). */
static __always_inline int h2_step(const struct h2_dir *d, __u32 start, __u32 end, __u32 *off,
				   __u32 *n)
{
	__u32 p = d->next + d->have, left;

	if ((__s32)(p - start) < 0)
		return H2_STEP_GAP;
	if ((__s32)(p - end) >= 0)
		return H2_STEP_DONE;
	*off = p - start;
	left = end - p;
	*n = H2_FRAME_HDR_LEN - d->have;
	if (*n > left)
		*n = left;
	return H2_STEP_READ;
}

enum h2_took_result {
	H2_TOOK_MORE = 0,	  /* the header is not whole yet */
	H2_TOOK_FRAME = 1,	  /* *fr is the header; next is past its payload */
	H2_TOOK_IMPLAUSIBLE = -1, /* *fr cannot be a header: the place is lost (next unchanged) */
};

/* n more bytes of the header were put at hdr + have. */
static __always_inline int h2_took(struct h2_dir *d, __u32 n, struct h2_hdr *fr)
{
	d->have += n;
	if (d->have < H2_FRAME_HDR_LEN)
		return H2_TOOK_MORE;
	d->have = 0;
	h2_parse(d->hdr, d->next, fr);
	if (!h2_plausible(fr))
		return H2_TOOK_IMPLAUSIBLE;
	d->next += H2_FRAME_HDR_LEN + fr->len;
	return H2_TOOK_FRAME;
}

#endif /* VPATH_H2_H */
