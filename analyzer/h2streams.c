// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "h2streams.h"

/* Frame types (RFC 9113 6). */
enum {
	H2_DATA = 0,
	H2_HEADERS = 1,
	H2_RST_STREAM = 3,
	H2_CONTINUATION = 9,
};
#define H2_END_STREAM 0x1
#define H2_HEADER_LEN 9

/* What a stream's exchange carries besides the exchange itself. */
struct h2_stream {
	struct vp_xchg *x;
	bool req_ended, rep_ended;
};

struct vpr_sock_op vp_h2__frame_op(const struct vpr_h2_frame *f, const struct vpr_sock_op *op)
{
	struct vpr_sock_op o = *op;

	o.h.ts_ns = f->h.ts_ns;
	o.bytes = H2_HEADER_LEN + f->length;
	o.seq_end = f->seq + o.bytes;
	o.dir = f->dir;
	o.flags = 0;
	return o;
}

/*
 * Frame o adds to message m.  A stream's frames are not contiguous in the
 * connection's stream (others' frames lie between): no gap is implied, and
 * the range runs from its first frame to the end of its last.
 */
static void msg_add_frame(struct vp_msg *m, const struct vpr_sock_op *o)
{
	if (o->h.ts_ns > m->last_ts)
		m->last_ts = o->h.ts_ns;
	m->bytes += o->bytes;
	m->seq_end = o->seq_end;
	if (o->h.tid != m->last_tid && m->nthreads < UINT16_MAX)
		m->nthreads++;
	m->last_tid = o->h.tid;
	m->nops++;
}

static struct vp_h2 *h2_of(struct vp_sock *s)
{
	if (!s->h2)
		s->h2 = calloc(1, sizeof(*s->h2));
	return s->h2;
}

/* The stream is over: done, its socket let go, incomplete if it has no reply or lost bytes. */
static struct vp_xchg *end_stream(struct vp_sock *s, struct h2_stream *st, uint32_t id)
{
	struct vp_xchg *x = st->x;

	u64map__del(&s->h2->open, id);
	free(st);
	x->done = true;
	x->sock = NULL;
	if (!x->has_rep && !x->unanswered)
		x->incomplete = true;
	return x;
}

static struct vp_xchg *stream_new(struct vp_sock *s, const struct vpr_sock_op *o, uint32_t id,
				  int host, struct vp_xpool *pool)
{
	struct vp_xchg *x = vp_exchanges__new(s, o, host, pool);

	if (!x)
		return NULL;
	/* Its frames are its own: nothing of other streams is in it (exchanges.h's marks). */
	x->muxed = false;
	x->h2_stream = true;
	x->h2_id = id;
	x->plaintext = s->h2->tls;
	x->other_known = false;
	s->h2->streams++;
	return x;
}

int vp_h2__frame(struct vp_sock *s, const struct vpr_h2_frame *f, const struct vpr_sock_op *op,
		 int host, struct vp_xpool *pool, struct vp_op_result *res, bool *went_dark)
{
	struct vpr_sock_op o = vp_h2__frame_op(f, op);
	bool request_dir = f->dir == vp_request_dir(s->role);
	bool tls = f->kind & VPR_H2_IN_TLS;
	uint8_t kind = f->kind & ~VPR_H2_IN_TLS;
	struct h2_stream *st;
	struct vp_h2 *h;

	memset(res, 0, sizeof(*res));
	res->kind = VP_OP_IGNORED;
	*went_dark = false;
	/* The first frame says which stream the connection's frames are read in. */
	if (!s->h2 && (s->h2 = h2_of(s)))
		s->h2->tls = tls;
	h = s->h2;
	if (!h)
		return -ENOMEM;
	/* Frames of the other stream (never both, docs/format.md) are not its. */
	if (h->dark || h->tls != tls)
		return 0;
	if (kind == VPR_H2_LOST) {
		h->dark = *went_dark = true;
		return 0;
	}
	h->frames_seen[f->dir & 1] = true;
	h->frames_end[f->dir & 1] = f->seq + H2_HEADER_LEN + f->length;
	/* Connection traffic, and frames that carry no request or reply bytes. */
	if (!f->stream_id || kind != VPR_H2_HEADER ||
	    (f->type != H2_DATA && f->type != H2_HEADERS && f->type != H2_CONTINUATION &&
	     f->type != H2_RST_STREAM))
		return 0;
	st = u64map__get(&h->open, f->stream_id);
	if (f->type == H2_RST_STREAM) {
		if (!st)
			return 0;
		/* Cancelled or refused before its reply ended: cut, its outcome incomplete. */
		if (!st->rep_ended)
			st->x->incomplete = true;
		res->finished = end_stream(s, st, f->stream_id);
		return 0;
	}
	if (!st) {
		/* A stream begins with its request's HEADERS; one begun before this is not followed. */
		if (!request_dir || f->type != H2_HEADERS)
			return 0;
		if (!(st = calloc(1, sizeof(*st))) || u64map__put(&h->open, f->stream_id, st)) {
			free(st);
			return -ENOMEM;
		}
		if (!(st->x = stream_new(s, &o, f->stream_id, host, pool))) {
			u64map__del(&h->open, f->stream_id);
			free(st);
			return -ENOMEM;
		}
		res->kind = VP_OP_REQ_FIRST;
	} else if (request_dir) {
		/* Where its message begins: the DATA record that holds it is looked for there (h2data.h). */
		if (f->type == H2_DATA && !st->x->h2_data) {
			st->x->h2_data = true;
			st->x->h2_data_seq = f->seq;
		}
		msg_add_frame(&st->x->req, &o);
		res->kind = VP_OP_REQ_MORE;
	} else if (!st->x->has_rep) {
		st->x->has_rep = true;
		vp_msg__start(&st->x->rep, &o);
		res->kind = VP_OP_REP_FIRST;
	} else {
		msg_add_frame(&st->x->rep, &o);
		res->kind = VP_OP_REP_MORE;
	}
	res->x = st->x;
	if (f->flags & H2_END_STREAM && f->type != H2_CONTINUATION) {
		if (request_dir)
			st->req_ended = st->x->h2_req_ended = true;
		else
			st->rep_ended = true;
	}
	/* Closed both ways; a reply that ends first (an early 4xx) waits for the request's end. */
	if (st->req_ended && st->rep_ended)
		res->finished = end_stream(s, st, f->stream_id);
	return 0;
}

struct vp_xchg *vp_h2__open_x(struct vp_sock *s, uint32_t id)
{
	struct h2_stream *st = s->h2 ? u64map__get(&s->h2->open, id) : NULL;

	return st ? st->x : NULL;
}

struct vp_xchg *vp_h2__first_data_x(struct vp_sock *s, uint32_t id, uint32_t seq)
{
	struct vp_xchg *x = vp_h2__open_x(s, id);

	return x && x->h2_data && x->h2_data_seq == seq ? x : NULL;
}

struct vp_xchg *vp_h2__take_open(struct vp_sock *s)
{
	size_t pos = 0;
	uint64_t id;
	void *v;
	struct vp_xchg *x;

	if (!s->h2 || !u64map__next(&s->h2->open, &pos, &id, &v))
		return NULL;
	x = end_stream(s, v, (uint32_t)id);
	x->unanswered = !x->has_rep;
	x->incomplete = true;
	return x;
}
