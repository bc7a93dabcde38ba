/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 4, exchanges: on each connection end, messages become synchronous
 * request/reply exchanges.  On an accepted end the request comes in and the
 * reply goes out; on a connected end the reverse.  A message in the reply
 * direction with no request before it is connection setup: a server
 * greeting (MySQL, SMTP), or the tail of a reply whose request came before
 * the recording started.  An exchange ends when the next request begins on
 * the same end, when the connection closes, or when the recording ends.
 *
 * A subscribed connection (an exchange's witness said so: Redis SUBSCRIBE)
 * carries messages the server sends unasked: each reply-direction
 * operation after a reply is then an exchange of its own, a push, with an
 * empty request where the request stream stands (both ends agree on it and
 * on where its reply begins, so the matcher pairs them), begun by the
 * thread that read or wrote the push, and its witness read from the push
 * alone (vp_witness_push).  One operation holding several pushes is one
 * exchange, with no witness.  An UNSUBSCRIBE (or RESET) ends that: the
 * replies after it may come in several reads.
 */
#ifndef VPATH_EXCHANGES_H
#define VPATH_EXCHANGES_H

#include "socktab.h"
#include "xchg.h"

/* The largest TLS alert record (close_notify: 24 bytes in TLS 1.3, 31 in TLS 1.2 with GCM). */
#define VP_TLS_ALERT_MAX 31

enum vp_op_kind {
	VP_OP_IGNORED = 0, /* no bytes (EOF): nothing to do */
	VP_OP_SETUP,	   /* part of connection setup, no exchange */
	VP_OP_REQ_FIRST,   /* began a new exchange (res->x) */
	VP_OP_REQ_MORE,
	VP_OP_REP_FIRST, /* began the reply of res->x */
	VP_OP_REP_MORE,
	VP_OP_PUSH, /* began a push's exchange (res->x, its empty request res->req_op) and its reply */
};

struct vp_op_result {
	enum vp_op_kind kind;
	struct vp_xchg *x;	   /* the exchange the op belongs to */
	struct vp_xchg *finished;  /* the exchange this op ended (a new request began), or NULL */
	struct vpr_sock_op req_op; /* VP_OP_PUSH: the request it stands for, no bytes */
};

/*
 * Feed one operation of socket s (role already known).  New exchanges come
 * from pool.  Returns 0 or -ENOMEM.
 */
int vp_exchanges__op(struct vp_sock *s, const struct vpr_sock_op *op, int host,
		     struct vp_xpool *pool, struct vp_op_result *res);
/*
 * The first bytes of one of s's operations (VPR_PAYLOAD, right after the
 * operation): those of the request's first operation are kept until those
 * of the reply's first come, and together they give the exchange its
 * witness (x->wit, proto/proto.h), or none.  Bytes of any other operation
 * (a request's later parts, a request whose start was another's tail) are
 * not used.  -ENOMEM.
 */
int vp_exchanges__payload(struct vp_sock *s, const struct vpr_payload *p);
/*
 * The hashes of one of s's operations' first bytes (VPR_PAYLOAD_HASH, right
 * after the operation): those of a request's first operation are the
 * exchange's content (x->content, forward.h), as a payload's bytes would
 * be; nothing else is done with them (they give no witness, cut no
 * pipeline).  -ENOMEM.
 */
int vp_exchanges__payload_hash(struct vp_sock *s, const struct vpr_payload_hash *ph);
/*
 * Pipelined requests (pipeline.h): after each operation and payload of s,
 * while this returns 1, the exchange in progress ended with its reply
 * (st->finished) and the next request cut from the same message began
 * (st->x, carried by st->req_op), with its reply's start when that was in
 * the same operation (st->rep, st->rep_op).  0: nothing more; -ENOMEM.
 */
struct vp_step {
	struct vp_xchg *finished, *x;
	struct vpr_sock_op req_op, rep_op;
	bool rep;
};
int vp_exchanges__step(struct vp_sock *s, int host, struct vp_xpool *pool, struct vp_step *st);
/*
 * A new exchange of s whose request op begins, not made s's exchange in
 * progress: for stages that cut a socket's exchanges themselves
 * (h2streams.h).  NULL on ENOMEM.
 */
struct vp_xchg *vp_exchanges__new(struct vp_sock *s, const struct vpr_sock_op *op, int host,
				  struct vp_xpool *pool);
/* End the exchange in progress on s (end of input); returns it, or NULL. */
struct vp_xchg *vp_exchanges__finish(struct vp_sock *s);
/* s closed: end its exchange, a one-way call when a request got no reply but a FIN came. */
struct vp_xchg *vp_exchanges__close(struct vp_sock *s);
/* The direction in which requests travel at an end of this role. */
static inline uint8_t vp_request_dir(uint8_t role)
{
	return role == VPR_ROLE_ACCEPTED ? VPR_DIR_RECV : VPR_DIR_SEND;
}

/*
 * Whether s's requests come from its peer, whose message starts may then cut
 * them (messages.h): a server end's.  A client's requests are its own sends.
 */
static inline bool vp_exchanges__sender_cuts(const struct vp_sock *s)
{
	return vp_request_dir(s->role) == VPR_DIR_RECV;
}

#endif
