// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>

#include "outbox.h"
#include "xchg.h"

void vp_outbox__push(struct vp_outbox *o, enum vp_out_kind kind, struct vp_xchg *x)
{
	if (o->len == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 256;
		struct vp_out_ev *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			abort(); /* out of memory: no sensible partial result */
		o->v = v;
		o->cap = cap;
	}
	/* An UP's exchange is held open by what it waits for; the others are held here. */
	if (kind != VP_OUT_UP)
		x->refs++;
	o->v[o->len++] = (struct vp_out_ev){x, (uint8_t)kind};
}

void vp_outbox__free(struct vp_outbox *o)
{
	free(o->v);
	o->v = NULL;
	o->len = o->cap = 0;
}
