/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 3, messages: cut by the sender's stream.  A message is what one end
 * sent before it read anything back: a byte range, whose first and last
 * operation, bytes and threads are kept.  The receiving end's operations
 * belong to that message by stream position, whenever they happen: servers
 * read a request's tail after replying (PHP-FPM and the FastCGI empty-stdin
 * record), read bodies lazily after an early reply, or read a TLS client's
 * Finished and its request in two reads around a session ticket.  Only where
 * the sender is not recorded do same-direction runs at the receiver decide
 * (vPath §3.3 "normalize").
 *
 * The sender's cuts come from the analysis's look-ahead (analysis.c), which
 * sees every host's operations some time before they are analyzed:
 * struct vp_cuts keeps where the latest messages of one end began.
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

/* Where one end's latest sent messages began (its stream, mod 2^32). */
#define VP_CUTS 32
struct vp_cuts {
	uint32_t at[VP_CUTS];  /* ring, the newest at (head - 1) */
	uint32_t sent_through; /* end of the last byte sent that was seen */
	uint32_t forgotten;    /* cuts before this were overwritten in the ring */
	uint8_t head, n;
	int8_t last_dir; /* of the last operation with bytes, -1 before */
	bool valid;	 /* a send was seen */
	bool any_forgotten;
};

enum vp_cut_answer {
	VP_CUT_UNKNOWN = 0, /* the sender's operations are not known that far */
	VP_CUT_NONE,	    /* [a, b) lies inside one message of the sender */
	VP_CUT_AT,	    /* a message of the sender begins at *at in [a, b) */
};

void vp_cuts__init(struct vp_cuts *c);
/* The look-ahead saw op (either direction) at this end. */
void vp_cuts__see(struct vp_cuts *c, const struct vpr_sock_op *op);
/* Is pos where one of this end's latest messages began? */
bool vp_cuts__has(const struct vp_cuts *c, uint32_t pos);
/* Does a message of this end begin within the byte range [a, b) it sent? */
enum vp_cut_answer vp_cuts__find(const struct vp_cuts *c, uint32_t a, uint32_t b, uint32_t *at);

/* A message begun by op. */
void vp_msg__start(struct vp_msg *m, const struct vpr_sock_op *op);
/* op continues m (same direction, same connection end). */
void vp_msg__add(struct vp_msg *m, const struct vpr_sock_op *op);
static inline bool vp_msg__empty(const struct vp_msg *m)
{
	return m->nops == 0;
}

#endif
