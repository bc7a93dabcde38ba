// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Baseline stage, nesting: Project 5's nesting algorithm over a message trace (nesting.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/nesting.h"
#include "hashmap.h"

/* log_1.05 bins from 1 ns to beyond two hours (the paper: 1 ms to 2 h in 340). */
#define NBINS 640

void vp_nest_opts__default(struct vp_nest_opts *o)
{
	o->x = 2;
	o->y = 0;
	o->z = 0;
}

static int bin_of(int64_t delta)
{
	int b;

	if (delta <= 1)
		return 0;
	b = (int)(log((double)delta) / log(1.05));
	return b < NBINS ? b : NBINS - 1;
}

static uint64_t triple(uint32_t a, uint32_t b, uint32_t c)
{
	return ((uint64_t)a << 42) | ((uint64_t)b << 21) | c;
}

struct work {
	uint32_t **in; /* per node: pairs it is called in, by t1 */
	size_t *nin;
	int64_t *maxdur; /* per node: its longest call */
	uint32_t *cand;	 /* candidates of every pair, ascending t1 */
	size_t *cand_off;
	struct u64map board; /* (A, B, C) -> double[NBINS] */
};

/* Step 1: a call and its return, by call id; pairs come out in order of their call. */
static int find_pairs(struct vp_nesting *n, const struct vp_btrace *t)
{
	int64_t *ret = malloc((t->ncalls + 1) * sizeof(*ret));
	size_t k = 0;

	if (!ret)
		return -ENOMEM;
	for (size_t i = 0; i < t->ncalls; i++)
		ret[i] = -1;
	for (size_t i = 0; i < t->nmsgs; i++)
		if (t->msgs[i].kind == VP_BMSG_RETURN)
			ret[t->msgs[i].call] = (int64_t)i;
	n->pairs = calloc(t->ncalls + 1, sizeof(*n->pairs));
	if (!n->pairs) {
		free(ret);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nmsgs; i++) {
		const struct vp_bmsg *m = &t->msgs[i];

		if (m->kind != VP_BMSG_CALL)
			continue;
		if (ret[m->call] < 0) {
			n->unmatched++;
			continue;
		}
		n->pairs[k++] = (struct vp_nest_pair){
			.call = m->call,
			.a = m->src,
			.b = m->dst,
			.t1 = m->send_ns,
			.t4 = t->msgs[ret[m->call]].send_ns,
			.parent = -1,
		};
	}
	n->npairs = k;
	free(ret);
	return 0;
}

static int push(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		uint32_t *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

static int index_callees(struct work *w, const struct vp_nesting *n, size_t nnodes)
{
	size_t *cap = calloc(nnodes, sizeof(*cap));
	int ret = 0;

	w->in = calloc(nnodes, sizeof(*w->in));
	w->nin = calloc(nnodes, sizeof(*w->nin));
	w->maxdur = calloc(nnodes, sizeof(*w->maxdur));
	if (!cap || !w->in || !w->nin || !w->maxdur) {
		free(cap);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n->npairs && !ret; i++) {
		const struct vp_nest_pair *p = &n->pairs[i];

		ret = push(&w->in[p->b], &w->nin[p->b], &cap[p->b], (uint32_t)i);
		if (p->t4 - p->t1 > w->maxdur[p->b])
			w->maxdur[p->b] = p->t4 - p->t1;
	}
	free(cap);
	return ret;
}

/* Step 2: every pair called into B around a call of B, each scored 1/N. */
static int score_nestings(struct work *w, struct vp_nesting *n)
{
	size_t ncand = 0, cap = 0;

	w->cand_off = calloc(n->npairs + 1, sizeof(*w->cand_off));
	if (!w->cand_off)
		return -ENOMEM;
	for (size_t i = 0; i < n->npairs; i++) {
		struct vp_nest_pair *c = &n->pairs[i];
		const uint32_t *in = w->in[c->a];
		size_t lo = 0, hi = w->nin[c->a], first;

		w->cand_off[i] = ncand;
		while (lo < hi) { /* the first call into the caller at or after c's call */
			size_t mid = lo + (hi - lo) / 2;

			if (n->pairs[in[mid]].t1 < c->t1)
				lo = mid + 1;
			else
				hi = mid;
		}
		first = ncand;
		for (size_t j = lo; j-- > 0;) {
			const struct vp_nest_pair *p = &n->pairs[in[j]];

			if (p->t1 < c->t1 - w->maxdur[c->a])
				break;
			if (in[j] != i && p->t4 > c->t4 && push(&w->cand, &ncand, &cap, in[j]))
				return -ENOMEM;
		}
		/* Found latest first: turn to ascending t1, so ties go to the earliest. */
		for (size_t x = first, y = ncand; x + 1 < y; x++, y--) {
			uint32_t tmp = w->cand[x];

			w->cand[x] = w->cand[y - 1];
			w->cand[y - 1] = tmp;
		}
		c->ncand = (uint32_t)(ncand - first);
		n->candidates += c->ncand;
		for (size_t k = first; k < ncand; k++) {
			const struct vp_nest_pair *p = &n->pairs[w->cand[k]];
			uint64_t key = triple(p->a, p->b, c->b);
			double *h = u64map__get(&w->board, key);

			if (!h) {
				if (!(h = calloc(NBINS, sizeof(*h))) ||
				    u64map__put(&w->board, key, h)) {
					free(h);
					return -ENOMEM;
				}
			}
			h[bin_of(c->t1 - p->t1)] += 1.0 / c->ncand;
		}
	}
	w->cand_off[n->npairs] = ncand;
	return 0;
}

/* Step 3: each pair, in order of its call, takes its best-scoring candidate. */
static int choose_parents(struct work *w, struct vp_nesting *n, const struct vp_nest_opts *o)
{
	for (size_t i = 0; i < n->npairs; i++) {
		struct vp_nest_pair *c = &n->pairs[i];
		double best = -1;
		int32_t parent = -1;

		for (size_t k = w->cand_off[i]; k < w->cand_off[i + 1]; k++) {
			const struct vp_nest_pair *p = &n->pairs[w->cand[k]];
			const double *h = u64map__get(&w->board, triple(p->a, p->b, c->b));
			unsigned overlap = 0, same = 0;
			double score;

			for (uint32_t j = 0; j < p->nkids; j++) {
				const struct vp_nest_pair *s = &n->pairs[p->kids[j]];

				overlap += s->t1 < c->t4 && s->t4 > c->t1;
				same += s->b == c->b;
			}
			score = h[bin_of(c->t1 - p->t1)] * pow(1.0 + overlap, -o->x) *
				pow(1.0 + same, -o->y) * pow(1.0 + p->nkids, -o->z);
			if (score > best) {
				best = score;
				parent = (int32_t)w->cand[k];
			}
		}
		c->parent = parent;
		if (parent >= 0) {
			struct vp_nest_pair *p = &n->pairs[parent];
			size_t nk = p->nkids, cap = p->kcap;

			if (push(&p->kids, &nk, &cap, (uint32_t)i))
				return -ENOMEM;
			p->nkids = (uint32_t)nk;
			p->kcap = (uint32_t)cap;
		}
	}
	return 0;
}

/* Step 4: shapes.  A pair's key is its callee and its children's keys, sorted. */
struct shaped {
	char **key;
	uint32_t **order; /* per pair: children in canonical order */
};

static const struct vp_nesting *sort_n;
static char **sort_keys;

static int by_key_then_time(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = strcmp(sort_keys[a], sort_keys[b]);

	if (c)
		return c;
	return sort_n->pairs[a].t1 < sort_n->pairs[b].t1
		       ? -1
		       : sort_n->pairs[a].t1 > sort_n->pairs[b].t1;
}

static int make_keys(struct shaped *s, const struct vp_nesting *n, const struct vp_btrace *t)
{
	s->key = calloc(n->npairs + 1, sizeof(*s->key));
	s->order = calloc(n->npairs + 1, sizeof(*s->order));
	if (!s->key || !s->order)
		return -ENOMEM;
	sort_n = n;
	sort_keys = s->key;
	/* A child's call comes after its parent's: backwards, children are done first. */
	for (size_t i = n->npairs; i-- > 0;) {
		const struct vp_nest_pair *p = &n->pairs[i];
		const char *name = t->nodes[p->b].name;
		size_t len = strlen(name) + 3;
		char *k;

		if (p->nkids) {
			if (!(s->order[i] = malloc(p->nkids * sizeof(uint32_t))))
				return -ENOMEM;
			memcpy(s->order[i], p->kids, p->nkids * sizeof(uint32_t));
			qsort(s->order[i], p->nkids, sizeof(uint32_t), by_key_then_time);
			for (uint32_t j = 0; j < p->nkids; j++)
				len += strlen(s->key[p->kids[j]]) + 1;
		}
		if (!(k = malloc(len)))
			return -ENOMEM;
		strcpy(k, name);
		for (uint32_t j = 0; j < p->nkids; j++) {
			strcat(k, j ? "," : "(");
			strcat(k, s->key[s->order[i][j]]);
		}
		if (p->nkids)
			strcat(k, ")");
		s->key[i] = k;
	}
	return 0;
}

static size_t count_nodes(const struct vp_nesting *n, uint32_t i)
{
	size_t c = 1;

	for (uint32_t j = 0; j < n->pairs[i].nkids; j++)
		c += count_nodes(n, n->pairs[i].kids[j]);
	return c;
}

static int add_value(struct vp_npnode *nd, double lat, double delay)
{
	if (nd->n == nd->cap) {
		size_t c = nd->cap ? nd->cap * 2 : 8;
		double *l = realloc(nd->lat, c * sizeof(*l)), *d;

		if (!l)
			return -ENOMEM;
		nd->lat = l;
		if (!(d = realloc(nd->delay, c * sizeof(*d))))
			return -ENOMEM;
		nd->delay = d;
		nd->cap = c;
	}
	nd->lat[nd->n] = lat;
	nd->delay[nd->n++] = delay;
	return 0;
}

/* Preorder in canonical order: node k of every instance of a pattern is the same callee. */
static int flatten(struct vp_npattern *pt, const struct shaped *s, const struct vp_nesting *n,
		   uint32_t i, int64_t parent_t1, uint32_t depth, size_t *k)
{
	const struct vp_nest_pair *p = &n->pairs[i];
	struct vp_npnode *nd = &pt->nodes[(*k)++];

	nd->node = p->b;
	nd->depth = depth;
	if (add_value(nd, (double)(p->t4 - p->t1), depth ? (double)(p->t1 - parent_t1) : 0))
		return -ENOMEM;
	for (uint32_t j = 0; j < p->nkids; j++)
		if (flatten(pt, s, n, s->order[i][j], p->t1, depth + 1, k))
			return -ENOMEM;
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct vp_npattern *a = x, *b = y;

	return a->total_ns > b->total_ns ? -1 : a->total_ns < b->total_ns;
}

static int make_patterns(struct vp_nesting *n, const struct vp_btrace *t)
{
	struct shaped s = {0};
	uint32_t *roots = malloc((n->npairs + 1) * sizeof(*roots));
	size_t nroots = 0;
	int ret = -ENOMEM;

	if (!roots || make_keys(&s, n, t))
		goto out;
	for (size_t i = 0; i < n->npairs; i++)
		if (n->pairs[i].parent < 0)
			roots[nroots++] = (uint32_t)i;
	qsort(roots, nroots, sizeof(*roots), by_key_then_time);
	n->patterns = calloc(nroots + 1, sizeof(*n->patterns));
	if (!n->patterns)
		goto out;
	for (size_t i = 0; i < nroots;) {
		struct vp_npattern *pt = &n->patterns[n->npatterns++];
		size_t j = i;

		pt->nnodes = count_nodes(n, roots[i]);
		pt->nodes = calloc(pt->nnodes, sizeof(*pt->nodes));
		pt->key = strdup(s.key[roots[i]]);
		if (!pt->nodes || !pt->key)
			goto out;
		pt->example = roots[i];
		pt->from = n->pairs[roots[i]].a;
		for (; j < nroots && !strcmp(s.key[roots[j]], pt->key); j++) {
			size_t k = 0;

			pt->count++;
			pt->total_ns += (double)(n->pairs[roots[j]].t4 - n->pairs[roots[j]].t1);
			if (flatten(pt, &s, n, roots[j], 0, 0, &k))
				goto out;
		}
		i = j;
	}
	qsort(n->patterns, n->npatterns, sizeof(*n->patterns), by_total);
	ret = 0;
out:
	for (size_t i = 0; s.key && i < n->npairs; i++) {
		free(s.key[i]);
		if (s.order)
			free(s.order[i]);
	}
	free(s.key);
	free(s.order);
	free(roots);
	return ret;
}

static void board__free(struct u64map *board)
{
	uint64_t key;
	void *h;

	for (size_t i = 0; u64map__next(board, &i, &key, &h);)
		free(h);
	u64map__free(board);
}

int vp_nesting__run(struct vp_nesting *n, struct vp_btrace *t, const struct vp_nest_opts *o)
{
	struct work w = {0};
	int ret;

	memset(n, 0, sizeof(*n));
	vp_btrace__sort(t);
	if (!(ret = find_pairs(n, t)) && !(ret = index_callees(&w, n, t->nnodes)) &&
	    !(ret = score_nestings(&w, n)) && !(ret = choose_parents(&w, n, o)))
		ret = make_patterns(n, t);
	for (size_t i = 0; w.in && i < t->nnodes; i++)
		free(w.in[i]);
	free(w.in);
	free(w.nin);
	free(w.maxdur);
	free(w.cand);
	free(w.cand_off);
	board__free(&w.board);
	return ret;
}

void vp_nesting__free(struct vp_nesting *n)
{
	for (size_t i = 0; i < n->npairs; i++)
		free(n->pairs[i].kids);
	free(n->pairs);
	for (size_t i = 0; i < n->npatterns; i++) {
		for (size_t k = 0; k < n->patterns[i].nnodes; k++) {
			free(n->patterns[i].nodes[k].lat);
			free(n->patterns[i].nodes[k].delay);
		}
		free(n->patterns[i].nodes);
		free(n->patterns[i].key);
	}
	free(n->patterns);
	memset(n, 0, sizeof(*n));
}
