// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "exchanges.h"
#include "pipeline.h"

static bool pipe_waits(const struct vp_sock *s)
{
	return s->pipe && s->pipe->n;
}

static struct vp_pipe *pipe_of(struct vp_sock *s)
{
	if (!s->pipe)
		s->pipe = calloc(1, sizeof(*s->pipe));
	return s->pipe;
}

/* n, the stream's next part, joins m: as if the two had never been cut apart. */
static void msg_join(struct vp_msg *m, const struct vp_msg *n)
{
	/* A part cut off the operation m ends with shares it: counted once. */
	bool same_op = n->first_ts == m->last_ts && n->first_tid == m->last_tid &&
		       n->seq_start == m->seq_end;

	if (n->seq_start != m->seq_end || n->gap)
		m->gap = true;
	if (n->last_ts > m->last_ts)
		m->last_ts = n->last_ts;
	m->bytes += n->bytes;
	m->seq_end = n->seq_end;
	m->nops += n->nops - same_op;
	m->nthreads += n->nthreads - 1 + (n->first_tid != m->last_tid);
	m->last_tid = n->last_tid;
}

/*
 * The boundaries were not all in the captured bytes: the requests still
 * waiting join the exchange in progress, one exchange as without them.
 */
static void merge_back(struct vp_sock *s)
{
	struct vp_pipe *pp = s->pipe;
	struct vp_xchg *x = s->x;

	for (unsigned i = 0; i < pp->n; i++) {
		if (x)
			msg_join(&x->req, &pp->q[i].req);
		free(pp->q[i].wit);
		pp->q[i].wit = NULL;
	}
	if (x && x->wit && pp->n)
		x->wit->count =
			(uint16_t)(x->wit->count + pp->n < UINT16_MAX ? x->wit->count + pp->n
								      : UINT16_MAX);
	pp->n = 0;
	pp->rest = false;
	pp->rep_end_known = false;
	/* A reply held for its next part goes without a witness: it was never whole. */
	free(pp->hold);
	pp->hold = NULL;
	if (x)
		x->pipe_head = false;
}

/* The exchange in progress is over (its reply is whole, or the next request began). */
static struct vp_xchg *finish(struct vp_sock *s)
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

struct vp_xchg *vp_exchanges__finish(struct vp_sock *s)
{
	if (pipe_waits(s) && s->x)
		merge_back(s);
	s->req_next_known = false;
	return finish(s);
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
	x->netns = s->netns;
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
	x->muxed = s->muxed;
	if (x->side == VP_CLIENT) {
		x->other_known = s->recv_any;
		x->other_end = s->recv_end;
	} else {
		x->other_known = s->sent_any;
		x->other_end = s->sent_end;
	}
	/* Itself until done; a client also waits for its peer (see xchg.h). */
	x->wait = x->side == VP_CLIENT ? 2 : 1;
	vp_msg__start(&x->req, op);
	return x;
}

struct vp_xchg *vp_exchanges__new(struct vp_sock *s, const struct vpr_sock_op *op, int host,
				  struct vp_xpool *pool)
{
	return xchg_new(s, op, host, pool);
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

	/*
	 * A client's peer's cuts are positions in the other stream, whose
	 * numbers can overlap these (two initial sequence numbers a few MB
	 * apart): they would cut nothing, or cut wrongly.
	 */
	if (!s->peer_sock || !s->x || !s->x->has_rep || !vp_exchanges__sender_cuts(s))
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

/* The last reply-direction operation of a socket whose pipelined requests wait. */
static void reply_op_seen(struct vp_sock *s, const struct vpr_sock_op *op)
{
	struct vp_pipe *pp = s->pipe;

	pp->rop = *op;
	pp->rest = false;
	free(pp->rbytes);
	pp->rbytes = NULL;
}

/*
 * A request-direction operation before any reply: more of the request, or,
 * where the witness of the one before said it ended exactly there, the next
 * pipelined request (pipeline.h).
 */
static int request_pipelined(struct vp_sock *s, const struct vpr_sock_op *op,
			     struct vp_op_result *res)
{
	struct vp_pipe *pp;

	if (s->req_next_known && vp_op_seq_start(op) == s->req_next) {
		s->req_next_known = false;
		if (!(pp = pipe_of(s)))
			return -ENOMEM;
		if (!pp->n) {
			pp->proto = s->req_proto;
			pp->rep_decided = pp->rep_end_known = pp->rest = false;
		}
		if (pp->n < VP_PIPE_MAX && pp->proto == s->req_proto) {
			struct vp_pipe_req *r = &pp->q[pp->n++];

			vp_msg__start(&r->req, op);
			r->op = *op;
			r->wit = NULL;
			s->x->pipe_head = true;
			res->kind = VP_OP_REQ_MORE;
			res->x = s->x;
			return 0;
		}
	}
	s->req_next_known = false;
	if (pipe_waits(s)) {
		vp_msg__add(&s->pipe->q[s->pipe->n - 1].req, op);
		res->kind = VP_OP_REQ_MORE;
		res->x = s->x;
		return 0;
	}
	return request_more(s, op, res);
}

/*
 * A subscribed connection's reply-direction operation after a reply: a
 * push, an exchange of its own (exchanges.h).
 */
static int push_exchange(struct vp_sock *s, const struct vpr_sock_op *op, int host,
			 struct vp_xpool *pool, struct vp_op_result *res)
{
	struct vpr_sock_op *req = &res->req_op;

	*req = *op;
	req->dir = vp_request_dir(s->role);
	req->bytes = 0;
	req->seq_end = req->dir == VPR_DIR_SEND ? s->sent_end : s->recv_end;
	res->finished = finish(s);
	if (!(s->x = xchg_new(s, req, host, pool)))
		return -ENOMEM;
	s->x->push = true;
	/* Its reply begins where the push does, not after what the other end had seen. */
	s->x->other_known = false;
	s->x->has_rep = true;
	vp_msg__start(&s->x->rep, op);
	res->kind = VP_OP_PUSH;
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
	if (op->flags & VPR_OP_H2_PREFACE)
		s->muxed = true;
	if (in_setup(s, op)) {
		s->dir = (int8_t)op->dir;
		res->kind = VP_OP_SETUP;
		return 0;
	}
	s->dir = (int8_t)op->dir;
	/*
	 * The reply of a pipelined request came without its first bytes: its end
	 * is unknown; unless this continues a reply held for its next part.
	 */
	if (pipe_waits(s) && (!s->x || (s->x->has_rep && !s->pipe->rep_decided)) &&
	    !(s->pipe->hold && s->x && op->dir != vp_request_dir(s->role) &&
	      s->x->rep.bytes == s->pipe->hold->total && vp_op_seq_start(op) == s->x->rep.seq_end))
		merge_back(s);
	if (op->dir == vp_request_dir(s->role)) {
		/* After a reply, even reads that follow reads may begin the next request. */
		if (same_dir && s->x && !s->x->has_rep)
			return request_pipelined(s, op, res);
		s->req_next_known = false;
		if (pipe_waits(s))
			merge_back(s);
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
		res->finished = finish(s);
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
	if (s->subscribed && s->x->has_rep && !pipe_waits(s))
		return push_exchange(s, op, host, pool, res);
	res->x = s->x;
	s->req_next_known = false;
	if (!s->x->has_rep) {
		s->x->has_rep = true;
		vp_msg__start(&s->x->rep, op);
		res->kind = VP_OP_REP_FIRST;
		if (pipe_waits(s))
			s->pipe->rep_decided = false;
	} else if (pipe_waits(s) && s->pipe->rep_end_known &&
		   (int32_t)(op->seq_end - s->pipe->rep_end) > 0 &&
		   (int32_t)(s->pipe->rep_end - vp_op_seq_start(op)) > 0) {
		/* The reply ends inside op: the rest is the next request's (vp_exchanges__step). */
		struct vpr_sock_op head = vp_op__upto(op, s->pipe->rep_end);

		vp_msg__add(&s->x->rep, &head);
		res->kind = VP_OP_REP_MORE;
		reply_op_seen(s, op);
		s->pipe->rest = true;
		s->pipe->rest_at = s->pipe->rep_end;
		return 0;
	} else {
		vp_msg__add(&s->x->rep, op);
		res->kind = VP_OP_REP_MORE;
	}
	if (pipe_waits(s))
		reply_op_seen(s, op);
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

/* Where op leaves its direction's stream at this end (after the exchange it began noted before). */
static void stream_moved(struct vp_sock *s, const struct vpr_sock_op *op)
{
	if (!op->bytes)
		return;
	if (op->dir == VPR_DIR_SEND) {
		s->sent_end = op->seq_end;
		s->sent_any = true;
	} else {
		s->recv_end = op->seq_end;
		s->recv_any = true;
	}
}

int vp_exchanges__op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		     struct vp_xpool *pool, struct vp_op_result *res)
{
	int ret = exchange_op(s, op, host, pool, res);

	stream_moved(s, op);

	if (!ret && res->x &&
	    (res->kind == VP_OP_REQ_FIRST || res->kind == VP_OP_REQ_MORE ||
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

/* The operation of a payload record, as the operation record had it (its flags aside). */
static struct vpr_sock_op op_of(const struct vpr_payload *p)
{
	struct vpr_sock_op op = {
		.h = p->h,
		.cookie = p->cookie,
		.pid = p->pid,
		.bytes = p->bytes,
		.seq_end = p->seq_end,
		.dir = p->dir,
	};

	op.h.type = VPR_SOCK_OP;
	op.h.size = sizeof(op);
	return op;
}

/*
 * A request's first operation came with its first bytes (p): keep them for
 * the witness, and cut the message where the witness says further
 * requests begin in it (pipeline.h).
 */
static int request_payload(struct vp_sock *s, struct vp_xchg *x, const struct vpr_payload *p)
{
	struct vp_bytes b = {p->data, p->len, p->bytes};
	struct vp_wit_req **wit;
	uint32_t at[VP_PIPE_MAX], start = p->seq_end - p->bytes;
	struct vp_pipe *pp;
	struct vp_msg *m;
	uint8_t proto;
	size_t n;
	bool ends;

	if (x->has_rep)
		return 0;
	/*
	 * Another id further into the request: requests of two parents went out
	 * on one connection before a reply (pipelined; cut apart or not, the
	 * requests' order alone then pairs them with their parents), so the
	 * first id does not name the whole message's parent.
	 */
	if (x->prop && !x->id_mixed && !first_op_of(&x->req, p)) {
		struct vp_propid id;

		if (vp_propid__read(p->data, p->len, &id) && !vp_propid__equal(&id, x->prop))
			x->id_mixed = true;
	}
	if (pipe_waits(s)) {
		struct vp_pipe_req *last = &s->pipe->q[s->pipe->n - 1];

		if (last->wit || !first_op_of(&last->req, p))
			return 0;
		m = &last->req;
		wit = &last->wit;
	} else {
		if (x->wit_req && !x->wit &&
		    (uint32_t)(x->req.seq_start + x->wit_req->total) == start) {
			struct vp_wit_req *j =
				vp_wit_req__join(x->wit_req, p->data, p->len, p->bytes);

			if (!j)
				return -ENOMEM;
			x->wit_req = j;
			return 0;
		}
		if (x->wit_req || !first_op_of(&x->req, p))
			return 0;
		m = &x->req;
		wit = &x->wit_req;
	}
	if (!(*wit = vp_wit_req__new(p->data, p->len, p->bytes)))
		return -ENOMEM;
	/* A stream's content is its DATA frame's (h2data.h), never an operation's bytes. */
	if (m == &x->req && !x->content && !x->h2_stream &&
	    !(x->content = vp_wit_req__new(p->data, p->len, p->bytes)))
		return -ENOMEM;
	if (m == &x->req && !x->prop) {
		struct vp_propid id;

		x->id_known = vp_propid__decided(p->data, p->len, p->bytes);
		if (vp_propid__read(p->data, p->len, &id)) {
			if (!(x->prop = malloc(sizeof(*x->prop))))
				return -ENOMEM;
			*x->prop = id;
		}
	}
	/* Only a message of this operation alone (the record follows its operation). */
	if (m->nops != 1 || m->seq_end != p->seq_end)
		return 0;
	n = vp_pipe__cuts(&b, &proto, at, VP_PIPE_MAX, &ends);
	if (pipe_waits(s) && proto != s->pipe->proto)
		return 0;
	s->req_next_known = ends;
	s->req_next = p->seq_end;
	s->req_proto = proto;
	if (!n)
		return 0;
	if (!(pp = pipe_of(s)))
		return -ENOMEM;
	if (!pp->n) {
		pp->proto = proto;
		pp->rep_decided = pp->rep_end_known = pp->rest = false;
	}
	for (size_t i = 0; i < n && pp->n < VP_PIPE_MAX; i++) {
		struct vpr_sock_op whole = op_of(p), op = vp_op__from(&whole, start + at[i]);
		struct vp_msg *prev = pp->n ? &pp->q[pp->n - 1].req : &x->req;
		struct vp_pipe_req *r = &pp->q[pp->n];

		prev->seq_end = start + at[i];
		prev->bytes = prev->seq_end - prev->seq_start;
		vp_msg__start(&r->req, &op);
		r->op = op;
		r->wit = NULL;
		if (at[i] < p->len &&
		    !(r->wit = vp_wit_req__new(p->data + at[i], p->len - at[i], op.bytes)))
			return -ENOMEM;
		pp->n++;
		x->pipe_head = true;
	}
	return 0;
}

/*
 * The witness of x from its request's first bytes and its reply's (rep).
 * last: no more reply bytes will come; otherwise bytes that do not decide
 * are kept for more (a prefix that decides decides for good, proto.h).
 */
static int witness(struct vp_xchg *x, const struct vp_bytes *rep, bool last)
{
	struct vp_bytes req;
	struct vp_witness w;
	bool found;

	if (x->push && !x->wit && rep->len && vp_witness_push(rep, &w)) {
		if (!(x->wit = malloc(sizeof(*x->wit))))
			return -ENOMEM;
		*x->wit = w;
		return 0;
	}
	if (!x->wit_req || x->wit || !rep->len)
		return 0;
	req = (struct vp_bytes){x->wit_req->data, x->wit_req->len, x->wit_req->total};
	/* One of a pipeline: its own request's bytes, not those after it. */
	if (vp_xchg__pipelined(x) && x->req.bytes < req.total) {
		req.total = x->req.bytes;
		if (req.len > req.total)
			req.len = (size_t)req.total;
	}
	found = vp_proto_witness(&req, rep, &w);
	if (!found && !last)
		return 0;
	free(x->wit_req);
	x->wit_req = NULL;
	if (!found)
		return 0;
	x->wit = malloc(sizeof(*x->wit));
	if (!x->wit)
		return -ENOMEM;
	*x->wit = w;
	if (x->sock && vp_witness_subscribes(&w))
		x->sock->subscribed = true;
	else if (x->sock && vp_witness_unsubscribes(&w))
		x->sock->subscribed =
			false; /* pushes still coming join its reply: no link, none wrong */
	return 0;
}

/*
 * x's reply begins at `off` of an operation of `total` bytes whose first
 * `len` were captured: its witness, and while pipelined requests wait,
 * where it ends (the next one's reply begins there, maybe in this operation).
 */
static int reply_bytes(struct vp_sock *s, struct vp_xchg *x, const uint8_t *data, size_t len,
		       uint64_t total, uint32_t off)
{
	struct vp_bytes rep = {data + (off < len ? off : len), off < len ? len - off : 0,
			       total - off};
	struct vp_pipe *pp = s->pipe;

	if (pipe_waits(s) && x == s->x && !pp->rep_decided) {
		const struct vp_proto_ops *o = vp_proto_ops_of(pp->proto);
		struct vp_witness w;
		size_t r = 0;

		memset(&w, 0, sizeof(w));
		pp->rep_decided = true;
		if (rep.len && o && o->reply_len && o->reply(&rep, &w) == 1)
			r = o->reply_len(&rep);
		if (r && r < (1u << 31)) {
			pp->rep_end = x->rep.seq_start + (uint32_t)r;
			pp->rep_end_known = true;
		} else if (rep.len && rep.len == rep.total && rep.len < VP_PIPE_HOLD_MAX) {
			/* Cut by the operation's end, not the capture: wait for the next part. */
			struct vp_wit_req *h = vp_wit_req__new(rep.p, rep.len, rep.total);

			if (!h)
				return -ENOMEM;
			free(pp->hold);
			pp->hold = h;
			pp->rep_decided = false;
			return witness(x, &rep, false);
		} else {
			merge_back(s);
		}
	}
	if (witness(x, &rep, true))
		return -ENOMEM;
	/* The reply ends inside its last operation so far (rop): the rest is the next one's. */
	if (pipe_waits(s) && x == s->x && pp->rep_end_known &&
	    (int32_t)(x->rep.seq_end - pp->rep_end) > 0) {
		x->rep.bytes -= x->rep.seq_end - pp->rep_end;
		x->rep.seq_end = pp->rep_end;
		pp->rest = true;
		pp->rest_at = pp->rep_end;
	}
	return 0;
}

int vp_exchanges__payload(struct vp_sock *s, const struct vpr_payload *p)
{
	struct vp_xchg *x = s->x;
	struct vp_pipe *pp = s->pipe;
	uint32_t off;

	if (!x || !p->len || x->setup)
		return 0;
	if (p->dir == vp_request_dir(s->role))
		return request_payload(s, x, p);
	if (pp && !pp->rbytes && pp->rop.h.ts_ns == p->h.ts_ns && pp->rop.h.tid == p->h.tid &&
	    pp->rop.seq_end == p->seq_end && pp->rop.bytes == p->bytes &&
	    !(pp->rbytes = vp_wit_req__new(p->data, p->len, p->bytes)))
		return -ENOMEM;
	/* The next part of a reply held for it (pipeline.h): decide on both. */
	if (pp && pp->hold && pipe_waits(s) && x->has_rep && !pp->rep_decided &&
	    p->seq_end == x->rep.seq_end && x->rep.bytes == pp->hold->total + p->bytes) {
		uint8_t buf[VP_PIPE_HOLD_MAX + VPR_PAYLOAD_MAX];
		size_t n = pp->hold->len;
		uint64_t total = pp->hold->total + p->bytes;

		memcpy(buf, pp->hold->data, n);
		memcpy(buf + n, p->data, p->len);
		free(pp->hold);
		pp->hold = NULL;
		return reply_bytes(s, x, buf, n + p->len, total, 0);
	}
	/* The operation that began x's reply, maybe where the reply before it ended. */
	if (!x->has_rep || x->rep.first_ts != p->h.ts_ns || x->rep.first_tid != p->h.tid)
		return 0;
	off = x->rep.seq_start - (p->seq_end - p->bytes);
	if (off >= p->bytes)
		return 0;
	return reply_bytes(s, x, p->data, p->len, p->bytes, off);
}

int vp_exchanges__payload_hash(struct vp_sock *s, const struct vpr_payload_hash *ph)
{
	struct vp_xchg *x = s->x;
	const struct vp_msg *m;

	/* As request_payload() takes a request's first bytes as its content. */
	if (!x || !ph->len || x->setup || x->has_rep || x->content || x->h2_stream ||
	    pipe_waits(s) || ph->dir != vp_request_dir(s->role))
		return 0;
	m = &x->req;
	if (!m->nops || m->first_ts != ph->h.ts_ns || m->first_tid != ph->h.tid ||
	    m->seq_start != ph->seq_end - ph->bytes)
		return 0;
	if (!(x->content = vp_wit_req__hashed(ph)))
		return -ENOMEM;
	return 0;
}

int vp_exchanges__step(struct vp_sock *s, int host, struct vp_xpool *pool, struct vp_step *st)
{
	struct vp_pipe *pp = s->pipe;
	struct vp_xchg *x = s->x, *y;

	/* Called for every operation; st is read only when a step is taken. */
	if (!x || !pipe_waits(s) || !pp->rep_end_known || x->rep.seq_end != pp->rep_end)
		return 0;
	memset(st, 0, sizeof(*st));
	st->finished = finish(s);
	y = xchg_new(s, &pp->q[0].op, host, pool);
	if (!y)
		return -ENOMEM;
	y->req = pp->q[0].req;
	y->wit_req = pp->q[0].wit;
	y->pipe_tail = true;
	/* Begun after the operations that carried it: its marks would be late. */
	y->other_known = false;
	st->req_op = pp->q[0].op;
	memmove(pp->q, pp->q + 1, (size_t)(pp->n - 1) * sizeof(pp->q[0]));
	pp->n--;
	y->pipe_head = pp->n > 0;
	s->x = y;
	st->x = y;
	pp->rep_decided = pp->rep_end_known = false;
	if (pp->rest) {
		struct vpr_sock_op r = vp_op__from(&pp->rop, pp->rest_at);
		uint32_t off = pp->rest_at - vp_op_seq_start(&pp->rop);

		pp->rest = false;
		y->has_rep = true;
		vp_msg__start(&y->rep, &r);
		st->rep = true;
		st->rep_op = r;
		if (pp->rbytes &&
		    reply_bytes(s, y, pp->rbytes->data, pp->rbytes->len, pp->rbytes->total, off))
			return -ENOMEM;
	}
	return 1;
}
