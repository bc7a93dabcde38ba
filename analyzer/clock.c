// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

int vp_clocks__init(struct vp_clocks *c, size_t n, const int64_t *wall)
{
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->lo = calloc(n * n, sizeof(*c->lo));
	c->hi = calloc(n * n, sizeof(*c->hi));
	c->have_lo = calloc(n * n, sizeof(*c->have_lo));
	c->have_hi = calloc(n * n, sizeof(*c->have_hi));
	c->wall = calloc(n, sizeof(*c->wall));
	c->offset = calloc(n, sizeof(*c->offset));
	c->aligned = calloc(n, sizeof(*c->aligned));
	if (!c->lo || !c->hi || !c->have_lo || !c->have_hi || !c->wall || !c->offset || !c->aligned) {
		vp_clocks__free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		c->wall[i] = wall[i] - wall[0];
	c->dirty = true;
	vp_clocks__solve(c);
	return 0;
}

static void bound(struct vp_clocks *c, size_t i, size_t j, int64_t v, bool lower)
{
	size_t k = i * c->n + j;

	if (lower) {
		if (!c->have_lo[k] || v > c->lo[k]) {
			c->lo[k] = v;
			c->have_lo[k] = true;
			c->dirty = true;
		}
	} else if (!c->have_hi[k] || v < c->hi[k]) {
		c->hi[k] = v;
		c->have_hi[k] = true;
		c->dirty = true;
	}
}

void vp_clocks__sample(struct vp_clocks *c, int from, uint64_t send_ts, int to, uint64_t recv_ts)
{
	/* recv_ts + off[to] >= send_ts + off[from]: off[to] - off[from] >= send - recv. */
	int64_t d = (int64_t)(send_ts - recv_ts);

	if (from == to)
		return;
	c->samples++;
	bound(c, (size_t)from, (size_t)to, d, true);
	bound(c, (size_t)to, (size_t)from, -d, false);
}

/* Estimate of offset[j] - offset[i] from direct bounds; false when none. */
static bool pair_estimate(const struct vp_clocks *c, size_t i, size_t j, int64_t *d)
{
	size_t k = i * c->n + j;

	if (c->have_lo[k] && c->have_hi[k])
		*d = c->lo[k] + (c->hi[k] - c->lo[k]) / 2;
	else if (c->have_lo[k])
		*d = c->lo[k];
	else if (c->have_hi[k])
		*d = c->hi[k];
	else
		return false;
	return true;
}

bool vp_clocks__solve(struct vp_clocks *c)
{
	size_t *queue, qh = 0, qt = 0;
	bool changed = false;

	if (!c->dirty)
		return false;
	c->dirty = false;
	queue = calloc(c->n, sizeof(*queue));
	if (!queue)
		return false;
	for (size_t i = 0; i < c->n; i++)
		c->aligned[i] = false;
	/* Breadth first from host 0 over pairs that exchanged messages. */
	c->aligned[0] = true;
	if (c->offset[0] != 0)
		changed = true;
	c->offset[0] = 0;
	queue[qt++] = 0;
	while (qh < qt) {
		size_t i = queue[qh++];

		for (size_t j = 0; j < c->n; j++) {
			int64_t d;

			if (c->aligned[j] || !pair_estimate(c, i, j, &d))
				continue;
			c->aligned[j] = true;
			if (c->offset[j] != c->offset[i] + d)
				changed = true;
			c->offset[j] = c->offset[i] + d;
			queue[qt++] = j;
		}
	}
	for (size_t j = 0; j < c->n; j++) {
		if (!c->aligned[j] && c->offset[j] != c->wall[j]) {
			c->offset[j] = c->wall[j];
			changed = true;
		}
	}
	free(queue);
	return changed;
}

int64_t vp_clocks__uncertainty(const struct vp_clocks *c, int h)
{
	size_t k = (size_t)h;

	if (h == 0 || !c->have_lo[k] || !c->have_hi[k])
		return 0;
	return (c->hi[k] - c->lo[k]) / 2;
}

void vp_clocks__free(struct vp_clocks *c)
{
	free(c->lo);
	free(c->hi);
	free(c->have_lo);
	free(c->have_hi);
	free(c->wall);
	free(c->offset);
	free(c->aligned);
	memset(c, 0, sizeof(*c));
}
