// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "paths.h"

enum vp_fit vp_fit(const struct vp_xchg *r, uint64_t ref)
{
	if (r->has_rep && r->rep.last_ts >= ref)
		return VP_FIT_YES;
	/* Its reply is still to come, after ref (which has passed), or never comes. */
	if (!r->has_rep)
		return VP_FIT_YES;
	return r->done ? VP_FIT_NO : VP_FIT_UNKNOWN;
}

/* When the call's reply began (or, with none, its request ended): known once it has. */
static bool call_ref(const struct vp_xchg *c, uint64_t *ref)
{
	if (c->has_rep) {
		*ref = c->rep.first_ts;
		return true;
	}
	if (c->done) {
		*ref = c->req.last_ts;
		return true;
	}
	return false;
}

static bool fits(const struct vp_judgment *g, unsigned i, bool flush)
{
	return g->fit[i] == VP_FIT_YES || (flush && g->fit[i] == VP_FIT_UNKNOWN);
}

static void decide(struct vp_judge *j, struct vp_hpaths *p, struct vp_judgment *g, bool flush)
{
	unsigned nfit = 0, pick = 0;
	int latest = -1;
	struct vp_xchg *c = g->call;

	for (unsigned i = 0; i < g->n; i++) {
		/* A candidate under c itself (odd or damaged input) would close a cycle that never completes. */
		if (i && vp_hpaths__is_ancestor(p, c, g->cand[i]))
			g->fit[i] = VP_FIT_NO;
		if (!fits(g, i, flush))
			continue;
		nfit++;
		if (i && (latest < 0 || g->cand[i]->req.first_ts > g->cand[latest]->req.first_ts))
			latest = (int)i;
	}
	/* The first choice unless it cannot be, else the latest request to arrive that fits. */
	if (g->fit[0] == VP_FIT_NO && latest > 0)
		pick = (unsigned)latest;
	if (nfit == 1 && !j->never_exact && !c->muxed) {
		c->link = vp_link_make(VP_BASIS_WINDOW, 1);
		if (vp_xchg__holds_several(g->cand[pick])) /* see attribute.c link_call */
			c->link.exact = false;
		else
			j->exact++;
	} else {
		c->link = vp_link_make(VP_BASIS_LAST_INPUT, (uint16_t)(nfit ? nfit : g->n));
		/* Each that could have made it may be missing it: none of them is exact. */
		for (unsigned i = 0; i < g->n; i++)
			if (!nfit || fits(g, i, flush))
				g->cand[i]->tainted = true;
	}
	if (pick != 0) {
		vp_hpaths__move_child(p, c, g->cand[pick]);
		j->moved++;
	}
	j->decided++;
	c->judged = false;
	for (unsigned i = 0; i < g->n; i++)
		vp_hpaths__done_one(p, g->cand[i]);
}

/* Look again; true when decided (g is then freed). */
static bool judge(struct vp_judge *j, struct vp_hpaths *p, struct vp_judgment *g, bool flush)
{
	unsigned yes = 0, unknown = 0;

	if (!g->ref_known)
		g->ref_known = call_ref(g->call, &g->ref);
	if (g->ref_known) {
		for (unsigned i = 0; i < g->n; i++) {
			if (g->fit[i] == VP_FIT_UNKNOWN)
				g->fit[i] = (uint8_t)vp_fit(g->cand[i], g->ref);
			yes += g->fit[i] == VP_FIT_YES;
			unknown += g->fit[i] == VP_FIT_UNKNOWN;
		}
	}
	/* Two that fit leave it inferred whatever the rest do. */
	if (!flush && (!g->ref_known || (unknown && yes < 2)))
		return false;
	decide(j, p, g, flush);
	free(g);
	return true;
}

void vp_judge__open(struct vp_judge *j, struct vp_hpaths *p, struct vp_xchg *c,
		    struct vp_xchg *const *cand, unsigned n)
{
	struct vp_judgment *g;

	if (n > VP_JUDGE_MAX || !(g = calloc(1, sizeof(*g)))) {
		c->link = vp_link_make(VP_BASIS_LAST_INPUT, (uint16_t)n);
		return;
	}
	if (j->n >= VP_JUDGE_OPEN_MAX) {
		judge(j, p, j->v[0], true);
		memmove(j->v, j->v + 1, --j->n * sizeof(*j->v));
	}
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		struct vp_judgment **v = realloc(j->v, cap * sizeof(*v));

		if (!v) {
			free(g);
			c->link = vp_link_make(VP_BASIS_LAST_INPUT, (uint16_t)n);
			return;
		}
		j->v = v;
		j->cap = cap;
	}
	g->call = c;
	g->n = (uint8_t)n;
	for (unsigned i = 0; i < n; i++) {
		g->cand[i] = cand[i];
		cand[i]->wait++; /* held until judged: it cannot be emitted meanwhile */
	}
	c->judged = true;
	c->link = vp_link_make(VP_BASIS_LAST_INPUT, (uint16_t)n);
	j->v[j->n++] = g;
}

int vp_judge__by_id(struct vp_judge *j, struct vp_hpaths *p, struct vp_xchg *c, struct vp_xchg *m,
		    enum vp_basis b)
{
	for (size_t i = 0; i < j->n; i++) {
		struct vp_judgment *g = j->v[i];

		if (g->call != c)
			continue;
		for (unsigned k = 0; k < g->n; k++)
			if (g->cand[k] == m && g->fit[k] == VP_FIT_NO)
				return -1;
		if (vp_hpaths__is_ancestor(p, c, m))
			return -1;
		c->link = vp_link_make(b, 1);
		/* Moved before the candidates are let go: the one it leaves may complete. */
		if (c->up != m) {
			vp_hpaths__move_child(p, c, m);
			j->moved++;
		}
		j->decided++;
		j->exact++;
		c->judged = false;
		for (unsigned k = 0; k < g->n; k++)
			vp_hpaths__done_one(p, g->cand[k]);
		free(g);
		memmove(j->v + i, j->v + i + 1, (j->n - i - 1) * sizeof(*j->v));
		j->n--;
		return 1;
	}
	return 0;
}

static void sweep(struct vp_judge *j, struct vp_hpaths *p, bool flush)
{
	size_t k = 0;

	for (size_t i = 0; i < j->n; i++) {
		struct vp_judgment *g = j->v[i];

		if (!judge(j, p, g, flush))
			j->v[k++] = g;
	}
	j->n = k;
}

void vp_judge__update(struct vp_judge *j, struct vp_hpaths *p)
{
	if (j->n)
		sweep(j, p, false);
}

void vp_judge__flush(struct vp_judge *j, struct vp_hpaths *p)
{
	sweep(j, p, true);
}

void vp_judge__free(struct vp_judge *j)
{
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i]);
	free(j->v);
	memset(j, 0, sizeof(*j));
}
