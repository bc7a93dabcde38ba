/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The analysis's look-ahead: each host's records are read some time before
 * they are analyzed, so that stage 3 can cut a receiver's messages where the
 * sender's begin (messages.h) although the sender is another host whose
 * records are merged by time.  Records wait here, copied, in read order.
 */
#ifndef VPATH_FIFO_H
#define VPATH_FIFO_H

#include <stdbool.h>
#include <stddef.h>

#include "vpath/record.h"

/* Records waiting on one host; bounded so that damaged times cannot grow it. */
#define VP_FIFO_MAX (1u << 18)

/*
 * Slots the size of a socket operation (most records), not of the largest
 * record (union vpr_any, 88 bytes): the look-ahead holds some 20 ms of every
 * host, which at 88 bytes a record outgrew the L2 cache, and analyzing each
 * record began with a miss (cachegrind, 2026-11-28).  A longer record keeps
 * its first bytes in its slot and itself in `big`, in the same order.
 */
struct vp_fifo {
	struct vpr_sock_op *v;
	void **tag; /* beside each record: what the pusher found for it (the look-ahead: its socket) */
	size_t head, len, cap;
	union vpr_any *big; /* the records longer than a slot, oldest first */
	size_t bhead, blen, bcap;
};

static inline bool vp_fifo__full(const struct vp_fifo *f)
{
	return f->len >= VP_FIFO_MAX;
}

/* vp_fifo__push's general case: the ring grows, or the record is not a socket operation. */
int vp_fifo__push_slow(struct vp_fifo *f, const struct vpr_hdr *rec, void *tag);
/*
 * Copy rec (at most sizeof(union vpr_any) bytes of it) in, with its tag; 0 or
 * -ENOMEM.  Inline for the record nearly every push is: a socket operation
 * into room there is (only its own bytes: readers look at its type's fields).
 */
static inline int vp_fifo__push(struct vp_fifo *f, const struct vpr_hdr *rec, void *tag)
{
	size_t at = (f->head + f->len) & (f->cap - 1);

	if (f->len == f->cap || rec->size != sizeof(struct vpr_sock_op))
		return vp_fifo__push_slow(f, rec, tag);
	f->v[at] = *(const struct vpr_sock_op *)rec;
	f->tag[at] = tag;
	f->len++;
	return 0;
}
/* The oldest record, NULL when empty. */
static inline const struct vpr_hdr *vp_fifo__peek(const struct vp_fifo *f)
{
	if (!f->len)
		return NULL;
	return f->v[f->head].h.size > sizeof(*f->v) ? &f->big[f->bhead].h : &f->v[f->head].h;
}
/* The oldest record's tag (NULL when empty, or none, or untagged since). */
static inline void *vp_fifo__peek_tag(const struct vp_fifo *f)
{
	return f->len ? f->tag[f->head] : NULL;
}
/* Every record tagged `tag` loses its tag (what it named is gone). */
void vp_fifo__untag(struct vp_fifo *f, const void *tag);
/* Take the oldest record out; it stays readable until the next push. */
const struct vpr_hdr *vp_fifo__pop(struct vp_fifo *f);
void vp_fifo__free(struct vp_fifo *f);

#endif
