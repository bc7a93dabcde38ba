// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"

/* The `big` ring twice as large, oldest first; 0 or -ENOMEM (the ring unchanged). */
static int grow_big(struct vp_fifo *f)
{
	size_t cap = f->bcap ? f->bcap * 2 : 256; /* a power of two: positions are masked */
	union vpr_any *r = malloc(cap * sizeof(*r));

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < f->blen; i++)
		r[i] = f->big[(f->bhead + i) & (f->bcap - 1)];
	free(f->big);
	f->big = r;
	f->bcap = cap;
	f->bhead = 0;
	return 0;
}

int vp_fifo__push_slow(struct vp_fifo *f, const struct vpr_hdr *rec, void *tag)
{
	size_t size = rec->size < sizeof(union vpr_any) ? rec->size : sizeof(union vpr_any);
	size_t at;

	if (f->len == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024; /* a power of two: positions are masked */
		struct vpr_sock_op *v = malloc(cap * sizeof(*v));
		void **tags = malloc(cap * sizeof(*tags));

		if (!v || !tags) {
			free(v);
			free(tags);
			return -ENOMEM;
		}
		/* Unwrap into the new ring: oldest first. */
		for (size_t i = 0; i < f->len; i++) {
			v[i] = f->v[(f->head + i) & (f->cap - 1)];
			tags[i] = f->tag[(f->head + i) & (f->cap - 1)];
		}
		free(f->v);
		free(f->tag);
		f->v = v;
		f->tag = tags;
		f->cap = cap;
		f->head = 0;
	}
	if (size > sizeof(*f->v)) {
		if (f->blen == f->bcap && grow_big(f))
			return -ENOMEM;
		memcpy(&f->big[(f->bhead + f->blen++) & (f->bcap - 1)], rec, size);
		size = sizeof(*f->v); /* the slot: the header, which says where the record is */
	}
	/* Only the record's own bytes: readers look at the fields of its type, which it holds. */
	at = (f->head + f->len) & (f->cap - 1);
	if (size == sizeof(*f->v))
		f->v[at] = *(const struct vpr_sock_op *)rec;
	else
		memcpy(&f->v[at], rec, size);
	f->tag[at] = tag;
	f->len++;
	return 0;
}

const struct vpr_hdr *vp_fifo__pop(struct vp_fifo *f)
{
	const struct vpr_hdr *r = vp_fifo__peek(f);

	if (!r)
		return NULL;
	if (f->v[f->head].h.size > sizeof(*f->v)) {
		f->bhead = (f->bhead + 1) & (f->bcap - 1);
		f->blen--;
	}
	f->head = (f->head + 1) & (f->cap - 1);
	f->len--;
	return r;
}

void vp_fifo__untag(struct vp_fifo *f, const void *tag)
{
	for (size_t i = 0; i < f->len; i++)
		if (f->tag[(f->head + i) & (f->cap - 1)] == tag)
			f->tag[(f->head + i) & (f->cap - 1)] = NULL;
}

void vp_fifo__free(struct vp_fifo *f)
{
	free(f->v);
	free(f->tag);
	free(f->big);
	memset(f, 0, sizeof(*f));
}
