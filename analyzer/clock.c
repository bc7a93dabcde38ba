// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

#define UNKNOWN INT64_MAX

/* Bounds combine by addition; saturate below UNKNOWN instead of overflowing. */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return a > 0 ? UNKNOWN - 1 : INT64_MIN;
	return r == UNKNOWN ? UNKNOWN - 1 : r;
}

static int64_t clamp_offset(int64_t v)
{
	return v > VP_OFFSET_MAX ? VP_OFFSET_MAX : v < -VP_OFFSET_MAX ? -VP_OFFSET_MAX : v;
}

/* The middle of a and b, in either order, without overflow. */
static int64_t middle(int64_t a, int64_t b)
{
	return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
}

int vp_clocks__init(struct vp_clocks *c, size_t n, const char *const *boot_ids, const int64_t *wall,
		    const int64_t *starts)
{
	size_t nm = 0;

	memset(c, 0, sizeof(*c));
	c->n = n;
	c->machine = calloc(n, sizeof(*c->machine));
	c->offset = calloc(n, sizeof(*c->offset));
	c->aligned = calloc(n, sizeof(*c->aligned));
	c->wall = calloc(n, sizeof(*c->wall));
	c->start = calloc(n, sizeof(*c->start));
	c->moff = calloc(n, sizeof(*c->moff));
	c->fixed = calloc(n, sizeof(*c->fixed));
	c->up = calloc(n * n, sizeof(*c->up));
	c->tight = calloc(n * n, sizeof(*c->tight));
	if (!c->machine || !c->offset || !c->aligned || !c->wall || !c->start || !c->moff ||
	    !c->fixed || !c->up || !c->tight) {
		vp_clocks__free(c);
		return -ENOMEM;
	}
	for (size_t h = 0; h < n; h++) {
		size_t m = nm;

		for (size_t k = 0; k < h && boot_ids[h][0]; k++) {
			if (!strcmp(boot_ids[k], boot_ids[h])) {
				m = c->machine[k];
				break;
			}
		}
		c->machine[h] = m;
		if (m == nm) { /* a damaged header can say anything about wall clocks */
			c->start[nm] = starts[h];
			c->wall[nm++] = clamp_offset(
				sat_add(wall[h], wall[0] == INT64_MIN ? INT64_MAX : -wall[0]));
		}
	}
	c->nm = nm;
	for (size_t k = 0; k < nm * nm; k++)
		c->up[k] = UNKNOWN;
	c->dirty = true;
	vp_clocks__solve(c);
	return 0;
}

void vp_clocks__sample(struct vp_clocks *c, int from, uint64_t send_ts, int to, uint64_t recv_ts)
{
	size_t i = c->machine[from], j = c->machine[to];
	/* recv_ts + off[to] >= send_ts + off[from]: off[from] - off[to] <= recv - send. */
	int64_t d = (int64_t)(recv_ts - send_ts);
	int64_t *up = &c->up[j * c->nm + i];

	if (i == j)
		return;
	c->samples++;
	if (d < *up) {
		*up = d;
		c->dirty = true;
	}
}

/* Combine bounds along chains: tight[i][j] <= tight[i][k] + tight[k][j] (Floyd-Warshall). */
static void tighten(struct vp_clocks *c)
{
	size_t nm = c->nm;
	int64_t *t = c->tight;

	memcpy(t, c->up, nm * nm * sizeof(*t));
	for (size_t k = 0; k < nm; k++) {
		for (size_t i = 0; i < nm; i++) {
			int64_t ik = t[i * nm + k];

			if (ik == UNKNOWN)
				continue;
			for (size_t j = 0; j < nm; j++) {
				int64_t kj = t[k * nm + j];

				if (kj != UNKNOWN && sat_add(ik, kj) < t[i * nm + j])
					t[i * nm + j] = sat_add(ik, kj);
			}
		}
	}
}

/*
 * Where machine g may lie given the machines fixed so far: [*lo, *hi],
 * either side unknown.  Returns false when nothing bounds it.
 */
static bool interval(const struct vp_clocks *c, size_t g, int64_t *lo, int64_t *hi)
{
	size_t nm = c->nm;

	*lo = INT64_MIN;
	*hi = INT64_MAX;
	for (size_t f = 0; f < nm; f++) {
		int64_t fg = c->tight[f * nm + g], gf = c->tight[g * nm + f];

		if (!c->fixed[f])
			continue;
		if (fg != UNKNOWN && sat_add(c->moff[f], fg) < *hi)
			*hi = sat_add(c->moff[f], fg);
		if (gf != UNKNOWN && sat_add(c->moff[f], gf == INT64_MIN ? INT64_MAX : -gf) > *lo)
			*lo = sat_add(c->moff[f], gf == INT64_MIN ? INT64_MAX : -gf);
	}
	return *lo != INT64_MIN || *hi != INT64_MAX;
}

/* Fix the machine with the narrowest interval at its middle; false when none is bounded. */
static bool fix_next(struct vp_clocks *c)
{
	int64_t best_lo = 0, best_hi = 0;
	uint64_t best_width = UINT64_MAX;
	size_t best = c->nm;

	for (size_t g = 0; g < c->nm; g++) {
		int64_t lo, hi;
		uint64_t width;

		if (c->fixed[g] || !interval(c, g, &lo, &hi))
			continue;
		/* A one-sided bound is the least precise; contradicting bounds count by their size. */
		if (lo == INT64_MIN || hi == INT64_MAX)
			width = UINT64_MAX - 1;
		else
			width = hi >= lo ? (uint64_t)hi - (uint64_t)lo
					 : (uint64_t)lo - (uint64_t)hi;
		if (width < best_width) {
			best = g;
			best_width = width;
			best_lo = lo;
			best_hi = hi;
		}
	}
	if (best == c->nm)
		return false;
	c->fixed[best] = true;
	if (best_lo == INT64_MIN)
		c->moff[best] = best_hi;
	else if (best_hi == INT64_MAX)
		c->moff[best] = best_lo; /* only requests seen: assume the smallest delay is 0 */
	else
		c->moff[best] = middle(best_lo, best_hi);
	c->moff[best] = clamp_offset(c->moff[best]);
	return true;
}

bool vp_clocks__solve(struct vp_clocks *c)
{
	bool changed = false;

	if (!c->dirty)
		return false;
	c->dirty = false;
	tighten(c);
	memset(c->fixed, 0, c->nm * sizeof(*c->fixed));
	c->fixed[c->machine[0]] = true;
	c->moff[c->machine[0]] = 0;
	while (fix_next(c))
		;
	for (size_t m = 0; m < c->nm; m++)
		if (!c->fixed[m])
			c->moff[m] = c->wall[m];
	for (size_t h = 0; h < c->n; h++) {
		size_t m = c->machine[h];

		if (c->offset[h] != c->moff[m])
			changed = true;
		c->offset[h] = c->moff[m];
		c->aligned[h] = c->fixed[m];
	}
	return changed;
}

int64_t vp_clocks__doubt(const struct vp_clocks *c, int a, int b)
{
	size_t ma = c->machine[a], mb = c->machine[b];
	int64_t sa = c->start[ma], sb = c->start[mb];
	uint64_t apart;

	if (ma == mb || (c->fixed[ma] && c->fixed[mb]))
		return 0;
	apart = sa > sb ? (uint64_t)sa - (uint64_t)sb : (uint64_t)sb - (uint64_t)sa;
	if (apart > (uint64_t)VP_OFFSET_MAX)
		return VP_OFFSET_MAX;
	return (int64_t)apart > VP_UNALIGNED_SLACK_NS ? (int64_t)apart : VP_UNALIGNED_SLACK_NS;
}

void vp_clocks__free(struct vp_clocks *c)
{
	free(c->machine);
	free(c->offset);
	free(c->aligned);
	free(c->wall);
	free(c->start);
	free(c->moff);
	free(c->fixed);
	free(c->up);
	free(c->tight);
	memset(c, 0, sizeof(*c));
}
