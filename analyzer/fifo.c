// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fifo.h"

int vp_fifo__push_slow(struct vp_fifo *f, const struct vpr_hdr *rec, void *tag)
{
	size_t size = rec->size < sizeof(union vpr_any) ? rec->size : sizeof(union vpr_any);

	if (f->len == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024; /* a power of two: positions are masked */
		union vpr_any *v = malloc(cap * sizeof(*v));
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
	/*
	 * Only the record's own bytes: readers look at the fields of its type,
	 * which it holds.  Most are socket operations, copied at a fixed size.
	 */
	if (size == sizeof(struct vpr_sock_op))
		f->v[(f->head + f->len) & (f->cap - 1)].op = *(const struct vpr_sock_op *)rec;
	else
		memcpy(&f->v[(f->head + f->len) & (f->cap - 1)], rec, size);
	f->tag[(f->head + f->len) & (f->cap - 1)] = tag;
	f->len++;
	return 0;
}

const struct vpr_hdr *vp_fifo__pop(struct vp_fifo *f)
{
	const union vpr_any *r;

	if (!f->len)
		return NULL;
	r = &f->v[f->head];
	f->head = (f->head + 1) & (f->cap - 1);
	f->len--;
	return &r->h;
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
	memset(f, 0, sizeof(*f));
}
