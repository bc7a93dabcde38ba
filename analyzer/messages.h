/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 3, messages: consecutive operations in one direction on one
 * connection end form one application message (vPath §3.3 "normalize").
 */
#ifndef VPATH_MESSAGES_H
#define VPATH_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>
#include "vpath/record.h"

struct vp_msg {
	uint64_t first_ts, last_ts; /* first and last operation, host clock */
	uint64_t bytes;
	uint32_t seq_start, seq_end; /* stream range [seq_start, seq_end) mod 2^32 */
	uint32_t first_tid, last_tid;
	uint32_t nops;
	uint16_t nthreads; /* times the thread changed within the message, plus one */
	bool gap;	   /* stream positions jump: operations were lost */
};

static inline uint32_t vp_op_seq_start(const struct vpr_sock_op *op)
{
	return op->seq_end - op->bytes;
}

/* A message begun by op. */
void vp_msg__start(struct vp_msg *m, const struct vpr_sock_op *op);
/* op continues m (same direction, same connection end). */
void vp_msg__add(struct vp_msg *m, const struct vpr_sock_op *op);
static inline bool vp_msg__empty(const struct vp_msg *m)
{
	return m->nops == 0;
}

#endif
