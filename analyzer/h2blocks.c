// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h2blocks.h"
#include "proto/hpack.h"

/* A request's fields: its witness and its id. */
static int request_fields(struct vp_xchg *x, const struct vp_h2_fields *fl)
{
	if (!x->wit && fl->method[0] && fl->path[0]) {
		if (!(x->wit = calloc(1, sizeof(*x->wit))))
			return -ENOMEM;
		x->wit->proto = VP_PROTO_HTTP;
		x->wit->count = 1;
		x->wit->flags = fl->path_cut ? VP_WIT_CUT : 0;
		memcpy(x->wit->verb, fl->method, sizeof(x->wit->verb));
		memcpy(x->wit->text, fl->path, sizeof(x->wit->text));
	}
	if (x->prop)
		return 0;
	/* A block read to its end says whether an id is there; a cut one does not. */
	x->id_known = fl->whole;
	if (fl->id.kind == VP_PROPID_NONE)
		return 0;
	if (!(x->prop = malloc(sizeof(*x->prop))))
		return -ENOMEM;
	*x->prop = fl->id;
	return 0;
}

/* A reply's fields (its headers, or its trailers): status and grpc-status of a known call. */
static void reply_fields(struct vp_xchg *x, const struct vp_h2_fields *fl)
{
	struct vp_witness *w = x->wit;

	if (!w || w->proto != VP_PROTO_HTTP)
		return;
	if (fl->status && !w->status)
		w->status = fl->status;
	if (fl->grpc_status >= 0 && !(w->flags & VP_WIT_GRPC)) {
		w->flags |= VP_WIT_GRPC;
		w->grpc_status = (uint16_t)fl->grpc_status;
		if (fl->grpc_status) {
			w->flags |= VP_WIT_ERROR;
			snprintf(w->err, sizeof(w->err), "grpc-status %d", fl->grpc_status);
		}
	}
}

int vp_h2__block(struct vp_sock *s, const struct vpr_h2_frame *f, const struct vpr_payload *p,
		 struct vp_xchg *x, bool first)
{
	struct vp_h2 *h = s->h2;
	unsigned d = f->dir & 1;

	if (!h || h->dark)
		return 0;
	/* Nothing captured on this direction so far: it has no decoder to spoil. */
	if (!h->hpack[d] && !p)
		return 0;
	if (!h->hpack[d] && !(h->hpack[d] = vp_hpack__new()))
		return -ENOMEM;
	if (!h->fields[d] && !(h->fields[d] = calloc(1, sizeof(*h->fields[d]))))
		return -ENOMEM;
	if (!p) {
		vp_hpack__missed(h->hpack[d]);
		return 0;
	}
	if (f->type == VP_H2_HEADERS)
		h->block_first[d] = first;
	if (vp_hpack__frame(h->hpack[d], p->data, p->len, p->bytes, p->flags, h->fields[d]) !=
		    VP_HPACK_DONE ||
	    !x)
		return 0;
	if (f->dir == vp_request_dir(s->role))
		return h->block_first[d] ? request_fields(x, h->fields[d]) : 0;
	reply_fields(x, h->fields[d]);
	return 0;
}
