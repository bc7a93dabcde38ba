// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 4, exchanges (pipelines): where the requests of one message begin, and what waits. */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

/* The protocols whose messages are cut (proto.h: request_len). */
static size_t cuts_as(const struct vp_proto_ops *o, const struct vp_bytes *b, uint32_t *at,
		      size_t max, bool *ends)
{
	struct vp_witness w;
	size_t n = 0;
	uint64_t off = 0;

	memset(&w, 0, sizeof(w));
	*ends = false;
	if (!o->request_len || o->request(b, &w) != 1)
		return 0;
	while (n < max) {
		struct vp_bytes rest;
		size_t len;

		if (off >= b->len)
			break;
		rest = (struct vp_bytes){b->p + off, b->len - (size_t)off, b->total - off};
		len = o->request_len(&rest);
		if (!len)
			break;
		off += len;
		if (off == b->total)
			*ends = true;
		if (off >= b->total)
			break;
		at[n++] = (uint32_t)off;
	}
	return n;
}

size_t vp_pipe__cuts(const struct vp_bytes *b, uint8_t *proto, uint32_t *at, size_t max, bool *ends)
{
	size_t found = 0;
	bool e;

	*proto = VP_PROTO_NONE;
	*ends = false;
	for (uint8_t p = VP_PROTO_NONE + 1; p < VP_PROTO_MAX; p++) {
		uint32_t tmp[VP_PIPE_MAX];
		size_t n = cuts_as(vp_proto_ops_of(p), b, tmp,
				   max < VP_PIPE_MAX ? max : VP_PIPE_MAX, &e);

		if (!n && !e)
			continue;
		/* Two protocols would cut the same bytes: neither decides. */
		if (*proto != VP_PROTO_NONE) {
			*proto = VP_PROTO_NONE;
			*ends = false;
			return 0;
		}
		*proto = p;
		*ends = e;
		memcpy(at, tmp, n * sizeof(*at));
		found = n;
	}
	return found;
}

struct vp_wit_req *vp_wit_req__join(struct vp_wit_req *w, const uint8_t *data, size_t len,
				    uint64_t total)
{
	struct vp_wit_req *j;

	if (w->hashed || w->len != w->total || w->len + len > VP_WIT_JOIN_MAX)
		return w;
	if (!(j = realloc(w, sizeof(*w) + w->len + len)))
		return NULL;
	memcpy(j->data + j->len, data, len);
	j->len = (uint16_t)(j->len + len);
	j->total += total;
	return j;
}

struct vp_wit_req *vp_wit_req__new(const uint8_t *data, size_t len, uint64_t total)
{
	struct vp_wit_req *w = malloc(sizeof(*w) + len);

	if (!w)
		return NULL;
	w->total = total;
	w->len = (uint16_t)len;
	w->hashed = false;
	w->hash = w->hash_8 = w->hash_24 = 0;
	if (len)
		memcpy(w->data, data, len);
	return w;
}

struct vp_wit_req *vp_wit_req__hashed(const struct vpr_payload_hash *ph)
{
	struct vp_wit_req *w = vp_wit_req__new(NULL, 0, ph->bytes);

	if (!w)
		return NULL;
	w->len = ph->len;
	w->hashed = true;
	w->hash = ph->hash;
	w->hash_8 = ph->hash_8;
	w->hash_24 = ph->hash_24;
	return w;
}

struct vpr_sock_op vp_op__from(const struct vpr_sock_op *op, uint32_t from)
{
	struct vpr_sock_op o = *op;

	o.bytes = op->seq_end - from;
	o.flags &= VPR_OP_FALLBACK; /* it does not begin the stream, nor a handshake */
	return o;
}

struct vpr_sock_op vp_op__upto(const struct vpr_sock_op *op, uint32_t to)
{
	struct vpr_sock_op o = *op;

	o.bytes = to - vp_op_seq_start(op);
	o.seq_end = to;
	return o;
}

void vp_pipe__free(struct vp_pipe *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		free(p->q[i].wit);
	free(p->rbytes);
	free(p->hold);
	free(p);
}
