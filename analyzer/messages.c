// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>

#include "messages.h"

void vp_msg__start(struct vp_msg *m, const struct vpr_sock_op *op)
{
	memset(m, 0, sizeof(*m));
	m->first_ts = m->last_ts = op->h.ts_ns;
	m->bytes = op->bytes;
	m->seq_start = vp_op_seq_start(op);
	m->seq_end = op->seq_end;
	m->first_tid = m->last_tid = op->h.tid;
	m->nops = 1;
	m->nthreads = 1;
}

void vp_msg__add(struct vp_msg *m, const struct vpr_sock_op *op)
{
	/* A zero-byte op (EOF, EAGAIN shown as 0) carries no stream position. */
	if (op->bytes && vp_op_seq_start(op) != m->seq_end)
		m->gap = true;
	if (op->h.ts_ns > m->last_ts)
		m->last_ts = op->h.ts_ns;
	m->bytes += op->bytes;
	if (op->bytes)
		m->seq_end = op->seq_end;
	if (op->h.tid != m->last_tid && m->nthreads < UINT16_MAX)
		m->nthreads++;
	m->last_tid = op->h.tid;
	m->nops++;
}

void vp_cuts__init(struct vp_cuts *c)
{
	memset(c, 0, sizeof(*c));
	c->last_dir = -1;
}

/* Whether x lies in [a, b) of the stream (mod 2^32, ranges under 2 GiB). */
static bool seq_in(uint32_t x, uint32_t a, uint32_t b)
{
	return x - a < b - a;
}

void vp_cuts__see(struct vp_cuts *c, const struct vpr_sock_op *op)
{
	if (!op->bytes)
		return;
	if (op->dir == VPR_DIR_SEND) {
		if (c->last_dir != VPR_DIR_SEND) {
			if (c->n == VP_CUTS) {
				c->forgotten = c->at[c->head];
				c->any_forgotten = true;
			} else {
				c->n++;
			}
			c->at[c->head] = vp_op_seq_start(op);
			c->head = (uint8_t)((c->head + 1) % VP_CUTS);
		}
		c->sent_through = op->seq_end;
		c->valid = true;
	}
	c->last_dir = (int8_t)op->dir;
}

/* The i-th cut kept, oldest first. */
static uint32_t cut_at(const struct vp_cuts *c, unsigned i)
{
	return c->at[(c->head + VP_CUTS - c->n + i) % VP_CUTS];
}

bool vp_cuts__has(const struct vp_cuts *c, uint32_t pos)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->at[i] == pos)
			return true;
	return false;
}

enum vp_cut_answer vp_cuts__find(const struct vp_cuts *c, uint32_t a, uint32_t b, uint32_t *at)
{
	uint32_t oldest;
	unsigned lo, hi;

	/* Not seen sending up to b, or b is beyond what was seen: unknown. */
	if (!c->valid || !c->n || (int32_t)(c->sent_through - b) < 0)
		return VP_CUT_UNKNOWN;
	oldest = cut_at(c, 0);
	/* Cuts at or after a may have been overwritten: cannot tell. */
	if (c->any_forgotten && (int32_t)(c->forgotten - a) >= 0)
		return VP_CUT_UNKNOWN;
	/* Cuts grow along the stream: the first at or after a, by bisection from the oldest. */
	if ((int32_t)(a - oldest) < 0) {
		/*
		 * Before the oldest cut kept: inside the message of the last cut
		 * overwritten, or sent before the recording (unknown).
		 */
		if (!seq_in(oldest, a, b))
			return c->any_forgotten ? VP_CUT_NONE : VP_CUT_UNKNOWN;
		*at = oldest;
		return VP_CUT_AT;
	}
	lo = 0;
	hi = c->n;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (cut_at(c, mid) - oldest < a - oldest)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < c->n && seq_in(cut_at(c, lo), a, b)) {
		*at = cut_at(c, lo);
		return VP_CUT_AT;
	}
	return VP_CUT_NONE;
}
