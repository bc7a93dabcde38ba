/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 4, exchanges (pipelines): several requests sent in one message
 * before the first reply (HTTP/1.1 pipelining, a Redis pipeline) become one
 * exchange each where the captured first bytes (VPR_PAYLOAD) say exactly
 * where each request ends (proto.h request_len) and, as the replies come,
 * where each reply ends (reply_len).  The requests after the first wait
 * here, in order; the next one becomes its socket's exchange when the reply
 * of the one before it is whole, with the times of the operations that
 * carried it.  Where a boundary is not in the captured bytes (a capture too
 * short, a chunked reply, a value longer than the capture), nothing is
 * guessed: the requests still waiting join the exchange in progress, which
 * stays one exchange as without the split.
 */
#ifndef VPATH_PIPELINE_H
#define VPATH_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "messages.h"
#include "proto/proto.h"
#include "xchg.h"

/* Requests of one message that wait at once; those beyond stay with the last. */
#define VP_PIPE_MAX 16

struct vp_pipe_req {
	struct vp_msg req;	/* its bytes, and the operations that carried them */
	struct vpr_sock_op op;	/* the operation it began in, from where it begins */
	struct vp_wit_req *wit; /* captured bytes from its start (NULL: none) */
};

struct vp_pipe {
	struct vp_pipe_req q[VP_PIPE_MAX]; /* waiting, oldest first */
	uint8_t n;
	uint8_t proto;	  /* whose lengths cut them (enum vp_proto) */
	bool rep_decided; /* the reply in progress was measured, or could not be */
	bool rep_end_known;
	uint32_t rep_end; /* where the reply in progress ends in the stream */
	/* The last reply-direction operation: the next reply may begin inside it. */
	struct vpr_sock_op rop;
	bool rest; /* rop's bytes from rest_at on are the next exchange's */
	uint32_t rest_at;
	struct vp_wit_req *rbytes; /* rop's captured bytes, once they came */
	/*
	 * The reply in progress so far, when the end of its first operation
	 * cut its first value with every byte captured: the next operation's
	 * bytes complete it (a reader that reads less than was sent at once).
	 */
	struct vp_wit_req *hold;
};

/* The most reply bytes held for that. */
#define VP_PIPE_HOLD_MAX 512

/*
 * Where requests after the first begin in b, the captured start of one
 * operation that begins a request: offsets in (0, b->total), at most max,
 * found with the lengths of the one protocol that reads b as a request
 * (*proto).  *ends: the last request whose end is known ends exactly at
 * b->total (the next operation begins a request).  0 when none.
 */
size_t vp_pipe__cuts(const struct vp_bytes *b, uint8_t *proto, uint32_t *at, size_t max,
		     bool *ends);
/* A copy of len captured bytes of an operation part of total bytes; NULL on ENOMEM. */
struct vp_wit_req *vp_wit_req__new(const uint8_t *data, size_t len, uint64_t total);
/* The hashes of an operation's first bytes (--capture-hash), no bytes; NULL on ENOMEM. */
struct vp_wit_req *vp_wit_req__hashed(const struct vpr_payload_hash *ph);
/*
 * Captured bytes that go on in the request's next operation (AMQP clients
 * write a message's method, header and body frames apart): when every byte
 * of w's operations was captured, w followed by the next one's (len of
 * total), at most VP_WIT_JOIN_MAX in all; else w as it was.  NULL on ENOMEM
 * (w is kept).
 */
#define VP_WIT_JOIN_MAX 1024
struct vp_wit_req *vp_wit_req__join(struct vp_wit_req *w, const uint8_t *data, size_t len,
				    uint64_t total);
/* The part of op from stream position `from` on, and the part before `to`. */
struct vpr_sock_op vp_op__from(const struct vpr_sock_op *op, uint32_t from);
struct vpr_sock_op vp_op__upto(const struct vpr_sock_op *op, uint32_t to);
void vp_pipe__free(struct vp_pipe *p);

#endif
