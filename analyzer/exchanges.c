// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "exchanges.h"

struct vp_xchg *vp_exchanges__finish(struct vp_sock *s)
{
	struct vp_xchg *x = s->x;

	if (!x)
		return NULL;
	x->done = true;
	x->sock = NULL;
	if ((!x->has_rep && !x->one_way) || x->req.gap || x->rep.gap)
		x->incomplete = true;
	s->x = NULL;
	return x;
}

struct vp_xchg *vp_exchanges__close(struct vp_sock *s)
{
	/* A message and then a FIN, no reply: a goodbye (COM_QUIT, Terminate), complete as it is. */
	if (s->x && !s->x->has_rep && s->saw_fin)
		s->x->one_way = true;
	return vp_exchanges__finish(s);
}

static struct vp_xchg *xchg_new(struct vp_sock *s, const struct vpr_sock_op *op, int host,
				struct vp_xpool *pool)
{
	struct vp_xchg *x = vp_xpool__get(pool);

	if (!x)
		return NULL;
	x->sock = s;
	x->cookie = s->cookie;
	x->host = host;
	x->side = s->role == VPR_ROLE_ACCEPTED ? VP_SERVER : VP_CLIENT;
	x->pid = op->pid;
	x->conn_index = s->nexch++;
	x->local = s->local;
	x->remote = s->remote;
	x->have_tuple = s->have_tuple;
	/* Itself until done; a client also waits for its peer (see xchg.h). */
	x->wait = x->side == VP_CLIENT ? 2 : 1;
	vp_msg__start(&x->req, op);
	return x;
}

/*
 * A request-direction operation after this end replied: the tail of the
 * request it answered, or the next request?  The sender's cuts decide
 * (messages.h); NONE: a tail; AT: a new request from *op on, after a tail
 * taken off it (*op is then trimmed into *rest).  UNKNOWN: the receiver's
 * own rule (a new request).
 */
static enum vp_cut_answer sender_cut(const struct vp_sock *s, const struct vpr_sock_op **op,
				     struct vpr_sock_op *tail, struct vpr_sock_op *rest)
{
	uint32_t a = vp_op_seq_start(*op), b = (*op)->seq_end, at;
	enum vp_cut_answer ans;

	if (!s->peer_sock || !s->x || !s->x->has_rep)
		return VP_CUT_UNKNOWN;
	ans = vp_cuts__find(&s->peer_sock->cuts, a, b, &at);
	if (ans == VP_CUT_AT && at != a) {
		*tail = **op;
		tail->bytes = at - a;
		tail->seq_end = at;
		*rest = **op;
		rest->bytes = b - at;
		*op = rest;
	}
	return ans;
}

int vp_exchanges__op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		     struct vp_xpool *pool, struct vp_op_result *res)
{
	bool same_dir = s->dir == op->dir;
	struct vpr_sock_op tail = {0}, rest;

	res->finished = NULL;
	res->x = NULL;
	if (!op->bytes) {
		res->kind = VP_OP_IGNORED;
		return 0;
	}
	if (op->h.ts_ns > s->last_ts)
		s->last_ts = op->h.ts_ns;
	s->dir = (int8_t)op->dir;
	if (op->dir == vp_request_dir(s->role)) {
		/* After a reply, even reads that follow reads may begin the next request. */
		if (same_dir && s->x && !s->x->has_rep) {
			vp_msg__add(&s->x->req, op);
			res->kind = VP_OP_REQ_MORE;
			res->x = s->x;
			return 0;
		}
		switch (sender_cut(s, &op, &tail, &rest)) {
		case VP_CUT_UNKNOWN:
			/* The receiver's own rule: a run of reads is one message. */
			if (same_dir && s->x) {
				vp_msg__add(&s->x->req, op);
				res->kind = VP_OP_REQ_MORE;
				res->x = s->x;
				return 0;
			}
			break;
		case VP_CUT_NONE:
			vp_msg__add(&s->x->req, op);
			s->nlate++;
			res->kind = VP_OP_REQ_MORE;
			res->x = s->x;
			return 0;
		case VP_CUT_AT:
			if (tail.bytes) {
				vp_msg__add(&s->x->req, &tail);
				s->nlate++;
			}
			break;
		}
		res->finished = vp_exchanges__finish(s);
		s->x = xchg_new(s, op, host, pool);
		if (!s->x)
			return -ENOMEM;
		res->kind = VP_OP_REQ_FIRST;
		res->x = s->x;
		return 0;
	}
	if (!s->x) {
		if (!same_dir)
			s->nsetup++;
		res->kind = VP_OP_SETUP;
		return 0;
	}
	res->x = s->x;
	if (!s->x->has_rep) {
		s->x->has_rep = true;
		vp_msg__start(&s->x->rep, op);
		res->kind = VP_OP_REP_FIRST;
	} else {
		vp_msg__add(&s->x->rep, op);
		res->kind = VP_OP_REP_MORE;
	}
	return 0;
}
