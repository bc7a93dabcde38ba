// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Records handed in to the recorder's loop from its other threads (inbox.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "inbox.h"

void inbox__init(struct inbox *in)
{
	memset(in, 0, sizeof(*in));
	pthread_mutex_init(&in->lock, NULL);
}

void inbox__free(struct inbox *in)
{
	free(in->recs);
	pthread_mutex_destroy(&in->lock);
	memset(in, 0, sizeof(*in));
}

int inbox__put(struct inbox *in, const void *rec)
{
	const struct vpr_hdr *h = rec;
	int err = 0;

	if (h->size > sizeof(union vpr_any))
		return -EINVAL;
	pthread_mutex_lock(&in->lock);
	if (in->len == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 8;
		union vpr_any *r = realloc(in->recs, cap * sizeof(*r));

		if (r) {
			in->recs = r;
			in->cap = cap;
		} else {
			err = -ENOMEM;
		}
	}
	if (!err)
		memcpy(&in->recs[in->len++], rec, h->size);
	pthread_mutex_unlock(&in->lock);
	return err;
}

int inbox__take(struct inbox *in, int (*fn)(void *ctx, union vpr_any *rec), void *ctx)
{
	int err = 0;
	size_t i;

	pthread_mutex_lock(&in->lock);
	for (i = 0; i < in->len && !err; i++)
		err = fn(ctx, &in->recs[i]);
	in->len = 0;
	pthread_mutex_unlock(&in->lock);
	return err;
}
