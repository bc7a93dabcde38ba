/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
#ifndef VPATH_PROTO_REDISQ_H
#define VPATH_PROTO_REDISQ_H

#include "proto.h"

/*
 * Queue messages (redisq.c): what a command puts on a list or a stream,
 * what its reply delivers (vp_witness.qkind, qmsg, qid).  The request's
 * reader runs first, the reply's after it on the same witness.
 */
void vp_redisq_request(const struct vp_bytes *b, struct vp_witness *w);
void vp_redisq_reply(const struct vp_bytes *b, struct vp_witness *w);

#endif
