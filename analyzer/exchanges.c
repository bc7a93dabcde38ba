// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exchanges.h"

struct vp_xchg *vp_exchanges__finish(struct vp_sock *s)
{
	struct vp_xchg *x = s->x;

	if (!x)
		return NULL;
	x->done = true;
	x->sock = NULL;
	/* A request closed without a reply is judged with its peer (paths.c). */
	if ((!x->has_rep && !x->unanswered) || x->req.gap || x->rep.gap)
		x->incomplete = true;
	s->x = NULL;
	return x;
}

struct vp_xchg *vp_exchanges__close(struct vp_sock *s)
{
	struct vp_xchg *x = s->x;

	if (x && !x->has_rep) {
		x->unanswered = true;
		x->tls = s->tls;
		/* A message and then a FIN, no reply: a goodbye (COM_QUIT, Terminate). */
		x->one_way = s->saw_fin;
		/* On TLS, a last message this small is a close_notify alert: teardown. */
		x->teardown = s->tls && x->req.bytes <= VP_TLS_ALERT_MAX;
	}
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
	/* The handshake before it is the first call's setup time. */
	if (!s->nexch && s->setup_first_ts)
		x->setup_ns = op->h.ts_ns - s->setup_first_ts;
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

/*
 * A TLS handshake is connection setup, not an exchange: from a first
 * request-direction operation that begins the stream with a handshake record
 * (the recorder's VPR_OP_TLS_HS) until the request direction speaks again
 * after the reply direction did (TLS 1.3: the client's Finished, with or
 * before its first request).  Whichever thread does it, it is no request.
 */
static bool in_setup(struct vp_sock *s, const struct vpr_sock_op *op)
{
	bool request_dir = op->dir == vp_request_dir(s->role);

	if (!s->in_setup) {
		if (s->nexch || s->x || !request_dir || !(op->flags & VPR_OP_TLS_HS))
			return false;
		s->in_setup = s->tls = true;
		s->setup_first_ts = op->h.ts_ns;
		return true;
	}
	if (!request_dir) {
		s->setup_replied = true;
		return true;
	}
	if (!s->setup_replied)
		return true;
	s->in_setup = false;
	return false;
}

/* op adds to the request of the exchange in progress. */
static int request_more(struct vp_sock *s, const struct vpr_sock_op *op, struct vp_op_result *res)
{
	vp_msg__add(&s->x->req, op);
	res->kind = VP_OP_REQ_MORE;
	res->x = s->x;
	return 0;
}

static int exchange_op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		       struct vp_xpool *pool, struct vp_op_result *res)
{
	bool same_dir = s->dir == op->dir;
	struct vpr_sock_op tail = {0}, rest;

	res->finished = NULL;
	res->x = NULL;
	/* Bytes sent on a closed connection (a close_notify after the peer's reset) are no exchange. */
	if (!op->bytes || s->closed_ts) {
		res->kind = VP_OP_IGNORED;
		return 0;
	}
	if (op->h.ts_ns > s->last_ts)
		s->last_ts = op->h.ts_ns;
	if (in_setup(s, op)) {
		s->dir = (int8_t)op->dir;
		res->kind = VP_OP_SETUP;
		return 0;
	}
	s->dir = (int8_t)op->dir;
	if (op->dir == vp_request_dir(s->role)) {
		/* After a reply, even reads that follow reads may begin the next request. */
		if (same_dir && s->x && !s->x->has_rep)
			return request_more(s, op, res);
		switch (sender_cut(s, &op, &tail, &rest)) {
		case VP_CUT_UNKNOWN:
			/* The receiver's own rule: a run of reads is one message. */
			if (same_dir && s->x)
				return request_more(s, op, res);
			break;
		case VP_CUT_NONE:
			s->nlate++;
			return request_more(s, op, res);
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

/*
 * A TLS handshake record inside a request, or opening its reply, makes the
 * exchange connection setup too: a handshake after the stream began
 * (MySQL's SSLRequest, STARTTLS) or TLS 1.2's second flight.  It stays an
 * exchange (attribution and pairing have seen it) but is shown as the setup
 * time of the next one, which takes its place as the connection's first.
 */
static void note_handshake(struct vp_sock *s, struct vp_xchg *x, const struct vpr_sock_op *op)
{
	if (!(op->flags & VPR_OP_TLS_HS) || x->setup)
		return;
	x->setup = true;
	s->tls = true;
	if (!s->setup_first_ts)
		s->setup_first_ts = x->req.first_ts;
	if (x->conn_index + 1 == s->nexch)
		s->nexch--;
}

int vp_exchanges__op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		     struct vp_xpool *pool, struct vp_op_result *res)
{
	int ret = exchange_op(s, op, host, pool, res);

	if (!ret && res->x && (res->kind == VP_OP_REQ_FIRST || res->kind == VP_OP_REQ_MORE ||
			       res->kind == VP_OP_REP_FIRST))
		note_handshake(s, res->x, op);
	return ret;
}

/* Whether p names the first operation of message m. */
static bool first_op_of(const struct vp_msg *m, const struct vpr_payload *p)
{
	return m->nops && m->first_ts == p->h.ts_ns && m->first_tid == p->h.tid &&
	       m->seq_start == p->seq_end - p->bytes;
}

int vp_exchanges__payload(struct vp_sock *s, const struct vpr_payload *p)
{
	struct vp_xchg *x = s->x;
	struct vp_bytes req, rep;
	struct vp_witness w;
	bool found;

	if (!x || !p->len || x->setup)
		return 0;
	if (p->dir == vp_request_dir(s->role)) {
		if (x->wit_req || x->has_rep || !first_op_of(&x->req, p))
			return 0;
		x->wit_req = malloc(sizeof(*x->wit_req) + p->len);
		if (!x->wit_req)
			return -ENOMEM;
		x->wit_req->total = p->bytes;
		x->wit_req->len = p->len;
		memcpy(x->wit_req->data, p->data, p->len);
		return 0;
	}
	if (!x->wit_req || x->wit || !x->has_rep || !first_op_of(&x->rep, p))
		return 0;
	req = (struct vp_bytes){x->wit_req->data, x->wit_req->len, x->wit_req->total};
	rep = (struct vp_bytes){p->data, p->len, p->bytes};
	found = vp_proto_witness(&req, &rep, &w);
	free(x->wit_req);
	x->wit_req = NULL;
	if (!found)
		return 0;
	x->wit = malloc(sizeof(*x->wit));
	if (!x->wit)
		return -ENOMEM;
	*x->wit = w;
	return 0;
}
