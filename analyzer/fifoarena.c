// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdalign.h>
#include <stdlib.h>

#include "fifoarena.h"

/* Large enough that chunks are rare. */
#define CHUNK_SIZE (256u * 1024)
#define ALIGN alignof(max_align_t)

struct vp_farena_chunk {
	struct vp_farena_chunk *next; /* the next younger chunk */
	size_t size;		      /* bytes in data */
	size_t head, tail;	      /* the blocks still taken: data[head, tail) */
	alignas(max_align_t) unsigned char data[];
};

static size_t round_up(size_t n)
{
	return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static struct vp_farena_chunk *chunk_new(struct vp_farena *a, size_t need)
{
	struct vp_farena_chunk *c = a->spare;
	size_t size = need > CHUNK_SIZE ? need : CHUNK_SIZE;

	if (c && c->size >= need) {
		a->spare = c->next;
	} else {
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
	}
	c->next = NULL;
	c->head = c->tail = 0;
	return c;
}

void *vp_farena__alloc(struct vp_farena *a, size_t size)
{
	size_t need = round_up(size);
	struct vp_farena_chunk *c = a->tail;
	void *b;

	if (!c || c->size - c->tail < need) {
		struct vp_farena_chunk *n = chunk_new(a, need);

		if (!n)
			return NULL;
		if (c)
			c->next = n;
		else
			a->head = n;
		a->tail = c = n;
	}
	b = c->data + c->tail;
	c->tail += need;
	return b;
}

void vp_farena__pop(struct vp_farena *a, size_t size)
{
	struct vp_farena_chunk *c = a->head;

	if (!c || c->head == c->tail)
		return;
	c->head += round_up(size);
	if (c->head < c->tail)
		return;
	if (c == a->tail) { /* empty: cut from its start again */
		c->head = c->tail = 0;
		return;
	}
	a->head = c->next;
	/*
	 * Kept for the tail: as many as the arena held at its fullest, and a
	 * chunk given back to malloc (mmap'd at this size) would cost page
	 * faults again when taken.  A chunk of one large block goes back.
	 */
	if (c->size > CHUNK_SIZE) {
		free(c);
		return;
	}
	c->next = a->spare;
	a->spare = c;
}

void vp_farena__free(struct vp_farena *a)
{
	while (a->head) {
		struct vp_farena_chunk *c = a->head;

		a->head = c->next;
		free(c);
	}
	while (a->spare) {
		struct vp_farena_chunk *c = a->spare;

		a->spare = c->next;
		free(c);
	}
	a->head = a->tail = NULL;
}
