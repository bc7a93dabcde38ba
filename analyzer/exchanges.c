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

int vp_exchanges__op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		     struct vp_xpool *pool, struct vp_op_result *res)
{
	bool same_dir = s->dir == op->dir;

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
		if (same_dir && s->x) {
			vp_msg__add(&s->x->req, op);
			res->kind = VP_OP_REQ_MORE;
			res->x = s->x;
			return 0;
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
