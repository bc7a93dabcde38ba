// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>

#include "h2data.h"
#include "h2blocks.h"
#include "h2streams.h"
#include "pipeline.h"

/* The payload's first byte in data[] and its size without padding; false: not readable. */
static bool data_payload(const struct vpr_payload *p, uint32_t *at, uint32_t *size)
{
	const uint8_t *d = p->data;
	uint32_t plen, pad = 0;

	if (p->len < VP_H2_FRAME_HDR || d[3] != VP_H2_DATA)
		return false;
	plen = (uint32_t)d[0] << 16 | (uint32_t)d[1] << 8 | d[2];
	*at = VP_H2_FRAME_HDR;
	if (p->bytes != VP_H2_FRAME_HDR + plen)
		return false;
	if (d[4] & VP_H2_PADDED) {
		if (p->len <= VP_H2_FRAME_HDR)
			return false;
		pad = d[VP_H2_FRAME_HDR];
		(*at)++;
	}
	if (*at + pad >= VP_H2_FRAME_HDR + plen)
		return false;
	*size = VP_H2_FRAME_HDR + plen - pad - *at;
	return *at < p->len;
}

bool vp_h2__data_passed(const struct vp_sock *s, const struct vpr_payload *p)
{
	uint32_t start = p->seq_end - p->bytes;
	unsigned d = p->dir & 1;

	return !vp_h2__follows(s) ||
	       (s->h2->frames_seen[d] && (int32_t)(start - s->h2->frames_end[d]) < 0);
}

struct vp_xchg *vp_h2__data(struct vp_sock *s, const struct vpr_payload *p, int *err)
{
	uint32_t at, size, id, len;
	struct vp_xchg *x;

	*err = 0;
	if (!vp_h2__follows(s) || p->dir != vp_request_dir(s->role) || !data_payload(p, &at, &size))
		return NULL;
	id = ((uint32_t)p->data[5] << 24 | (uint32_t)p->data[6] << 16 | (uint32_t)p->data[7] << 8 |
	      p->data[8]) &
	     0x7fffffffu;
	/* Its request's first DATA frame only: the message's beginning. */
	x = vp_h2__first_data_x(s, id, p->seq_end - p->bytes);
	if (!x || x->content)
		return NULL;
	len = p->len - at;
	if (len > size)
		len = size;
	if (!(x->content = vp_wit_req__new(p->data + at, len, size)))
		*err = -ENOMEM;
	return x->content ? x : NULL;
}
