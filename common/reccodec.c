// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reccodec.h"

/* An item's first byte: its kind in the low bits, then (operations) what differs. */
#define TAG_OP 0
#define TAG_REC 1
#define TAG_END 2
#define TAG_KIND 0x03
#define OP_RECV 0x04
#define OP_NEW_SOCK 0x08
#define OP_TID 0x10
#define OP_PID 0x20
#define OP_SEQ 0x40
#define OP_FLAGS 0x80

static struct vp_recsock *sock_add(struct vp_recsock **v, size_t *n, size_t *cap, uint64_t cookie)
{
	struct vp_recsock *s = vp_grow((void **)v, n, cap, sizeof(**v));

	if (s)
		s->cookie = cookie;
	return s;
}

static bool plain_op(const struct vpr_hdr *rec)
{
	const struct vpr_sock_op *op = (const void *)rec;

	return rec->type == VPR_SOCK_OP && rec->size == sizeof(*op) && !op->pad &&
	       op->dir <= VPR_DIR_RECV;
}

static void encode_op(struct vp_recenc *e, const struct vpr_sock_op *op)
{
	uintptr_t idx = (uintptr_t)u64map__get(&e->by_cookie, op->cookie);
	struct vp_recsock *s = idx ? &e->socks[idx - 1] : NULL;
	uint8_t tag = TAG_OP | (op->dir ? OP_RECV : 0);
	unsigned d = op->dir;

	if (!s) {
		tag |= OP_NEW_SOCK;
		s = sock_add(&e->socks, &e->nsocks, &e->cap, op->cookie);
		if (!s || u64map__put(&e->by_cookie, op->cookie, (void *)(uintptr_t)e->nsocks)) {
			/* Nothing written: the table must not hold what the decoder's will not. */
			e->nsocks -= s ? 1 : 0;
			e->buf.oom = true;
			return;
		}
		idx = e->nsocks;
	}
	if (tag & OP_NEW_SOCK || s->tid != op->h.tid)
		tag |= OP_TID;
	if (tag & OP_NEW_SOCK || s->pid != op->pid)
		tag |= OP_PID;
	if (!(s->seen & (1u << d)) || s->seq_end[d] + op->bytes != op->seq_end)
		tag |= OP_SEQ;
	if (op->flags)
		tag |= OP_FLAGS;
	vp_wbuf__u8(&e->buf, tag);
	vp_wbuf__svar(&e->buf, (int64_t)(op->h.ts_ns - e->last_ts));
	vp_wbuf__var(&e->buf, tag & OP_NEW_SOCK ? op->cookie : idx - 1);
	if (tag & OP_TID)
		vp_wbuf__var(&e->buf, op->h.tid);
	if (tag & OP_PID)
		vp_wbuf__var(&e->buf, op->pid);
	vp_wbuf__var(&e->buf, op->bytes);
	if (tag & OP_SEQ)
		vp_wbuf__var(&e->buf, op->seq_end);
	if (tag & OP_FLAGS)
		vp_wbuf__u8(&e->buf, op->flags);
	s->tid = op->h.tid;
	s->pid = op->pid;
	s->seq_end[d] = op->seq_end;
	s->seen |= (uint8_t)(1u << d);
}

void vp_recenc__record(struct vp_recenc *e, const struct vpr_hdr *rec)
{
	if (plain_op(rec)) {
		encode_op(e, (const struct vpr_sock_op *)rec);
		if (e->buf.oom)
			return; /* nothing written: the next item's time is from the last one's */
	} else {
		vp_wbuf__u8(&e->buf, TAG_REC);
		vp_wbuf__var(&e->buf, rec->type);
		vp_wbuf__var(&e->buf, rec->size);
		vp_wbuf__svar(&e->buf, (int64_t)(rec->ts_ns - e->last_ts));
		vp_wbuf__var(&e->buf, rec->tid);
		vp_wbuf__bytes(&e->buf, rec + 1, rec->size - sizeof(*rec));
	}
	e->last_ts = rec->ts_ns;
	e->count++;
}

void vp_recenc__file_end(struct vp_recenc *e, uint8_t status, const char *error)
{
	/* Copied: a reader's message buffer may be shorter than the bound (-Wstringop-overread). */
	char msg[320];

	snprintf(msg, sizeof(msg), "%s", error ? error : "");
	vp_wbuf__u8(&e->buf, TAG_END);
	vp_wbuf__u8(&e->buf, status);
	vp_wbuf__str(&e->buf, msg, 319);
	e->count++;
}

void vp_recenc__reset(struct vp_recenc *e)
{
	e->buf.len = 0;
	e->count = 0;
	e->last_ts = 0;
	e->nsocks = 0;
	u64map__free(&e->by_cookie);
}

void vp_recenc__free(struct vp_recenc *e)
{
	vp_wbuf__free(&e->buf);
	u64map__free(&e->by_cookie);
	free(e->socks);
	memset(e, 0, sizeof(*e));
}

void vp_recdec__block(struct vp_recdec *d, const uint8_t *p, size_t len, uint32_t count)
{
	d->b = (struct vp_rbuf){p, p + len, false};
	d->left = count;
	d->last_ts = 0;
	d->nsocks = 0;
}

static int decode_op(struct vp_recdec *d, uint8_t tag)
{
	struct vpr_sock_op *op = (struct vpr_sock_op *)d->rec;
	struct vp_recsock *s;
	unsigned dir = tag & OP_RECV ? 1 : 0;

	memset(op, 0, sizeof(*op));
	op->h.type = VPR_SOCK_OP;
	op->h.size = sizeof(*op);
	op->h.ts_ns = d->last_ts + (uint64_t)vp_rbuf__svar(&d->b);
	if (tag & OP_NEW_SOCK) {
		if (!(s = sock_add(&d->socks, &d->nsocks, &d->cap, vp_rbuf__var(&d->b))))
			return -ENOMEM;
	} else {
		uint64_t i = vp_rbuf__var(&d->b);

		if (i >= d->nsocks)
			return -EINVAL;
		s = &d->socks[i];
	}
	op->cookie = s->cookie;
	op->dir = (uint8_t)dir;
	op->h.tid = tag & OP_TID ? (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX) : s->tid;
	op->pid = tag & OP_PID ? (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX) : s->pid;
	op->bytes = (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX);
	if (tag & OP_SEQ)
		op->seq_end = (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX);
	else if (s->seen & (1u << dir))
		op->seq_end = s->seq_end[dir] + op->bytes;
	else
		return -EINVAL;
	if (tag & OP_FLAGS)
		op->flags = vp_rbuf__u8(&d->b);
	s->tid = op->h.tid;
	s->pid = op->pid;
	s->seq_end[dir] = op->seq_end;
	s->seen |= (uint8_t)(1u << dir);
	d->last_ts = op->h.ts_ns;
	return d->b.bad ? -EINVAL : VP_ITEM_RECORD;
}

static int decode_rec(struct vp_recdec *d)
{
	struct vpr_hdr *h = (struct vpr_hdr *)d->rec;
	uint64_t type = vp_rbuf__varmax(&d->b, UINT16_MAX);
	uint64_t size = vp_rbuf__varmax(&d->b, UINT16_MAX);

	if (size < sizeof(*h))
		return -EINVAL;
	h->type = (uint16_t)type;
	h->size = (uint16_t)size;
	h->ts_ns = d->last_ts + (uint64_t)vp_rbuf__svar(&d->b);
	h->tid = (uint32_t)vp_rbuf__varmax(&d->b, UINT32_MAX);
	vp_rbuf__bytes(&d->b, h + 1, size - sizeof(*h));
	d->last_ts = h->ts_ns;
	return d->b.bad ? -EINVAL : VP_ITEM_RECORD;
}

int vp_recdec__next(struct vp_recdec *d)
{
	uint8_t tag;

	if (!d->left)
		return d->b.p == d->b.end ? 0 : -EINVAL;
	d->left--;
	tag = vp_rbuf__u8(&d->b);
	switch (tag & TAG_KIND) {
	case TAG_OP:
		return decode_op(d, tag);
	case TAG_REC:
		return tag == TAG_REC ? decode_rec(d) : -EINVAL;
	case TAG_END:
		if (tag != TAG_END)
			return -EINVAL;
		d->status = vp_rbuf__u8(&d->b);
		vp_rbuf__str(&d->b, d->error, sizeof(d->error));
		return d->b.bad ? -EINVAL : VP_ITEM_FILE_END;
	default:
		return -EINVAL;
	}
}

void vp_recdec__free(struct vp_recdec *d)
{
	free(d->socks);
	d->socks = NULL;
	d->nsocks = d->cap = 0;
}
