/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Memory for things that are given back in the order they were taken (the
 * requests that wait for loss to be known, paths.c): blocks are cut from the
 * tail of a chunk and given back at the head, and a chunk the head has left
 * is kept for the tail to reuse (memory follows the most ever held).  No malloc per block, no free-list walk,
 * and what waits lies together, in the order it will be read.
 */
#ifndef VPATH_FIFOARENA_H
#define VPATH_FIFOARENA_H

#include <stddef.h>

struct vp_farena_chunk;

struct vp_farena {
	struct vp_farena_chunk *head;  /* the oldest block's chunk */
	struct vp_farena_chunk *tail;  /* where the next block is cut */
	struct vp_farena_chunk *spare; /* emptied chunks (next-linked), kept for the tail */
};

/*
 * size bytes aligned for any object, NULL on ENOMEM.  Not written to: the
 * first touch of new memory (a page fault) is the caller's, on whichever
 * thread fills the block.
 */
void *vp_farena__alloc(struct vp_farena *a, size_t size);
/* Give back the oldest block still taken, of the size it was taken with. */
void vp_farena__pop(struct vp_farena *a, size_t size);
void vp_farena__free(struct vp_farena *a);

#endif
