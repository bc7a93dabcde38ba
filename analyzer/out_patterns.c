// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Path patterns (Project 5 §5.4): requests whose call trees have the same
 * shape (the same servers called in the same nesting) are one pattern.  Per
 * pattern: how many requests, their total time; per node: mean, p50 and p99
 * of its duration and of its start after its parent's start.  Distributions
 * are log-scale histograms, so memory is per pattern, not per request.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

#define HBUCKETS 1024 /* 16 per power of two: about 4.4% resolution */

struct hist {
	uint64_t n;
	double sum;
	uint32_t b[HBUCKETS];
};

struct pnode {
	char name[168]; /* "client-node -> server-node" */
	int depth;
	struct hist dur, offset;
};

struct pattern {
	char *key;
	uint64_t count;
	double total_ns;
	struct pnode *nodes; /* preorder in canonical order */
	size_t nnodes;
	uint64_t example_id;
};

struct vp_patterns {
	struct pattern *v;
	size_t n, cap;
};

static void hist_add(struct hist *h, int64_t ns)
{
	int b = ns <= 1 ? 0 : (int)(log2((double)ns) * 16);

	if (b >= HBUCKETS)
		b = HBUCKETS - 1;
	h->b[b]++;
	h->n++;
	h->sum += (double)ns;
}

static double hist_quantile(const struct hist *h, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)h->n), seen = 0;

	for (int i = 0; i < HBUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want && h->b[i])
			return exp2(((double)i + 0.5) / 16);
	}
	return 0;
}

/* Children in canonical order: by their own shape key, so concurrency does not split patterns. */
struct keyed {
	const struct vp_call *c;
	char *key;
};

static char *shape_key(const struct vp_analysis *a, const struct vp_call *c);

static int cmp_keyed(const void *x, const void *y)
{
	return strcmp(((const struct keyed *)x)->key, ((const struct keyed *)y)->key);
}

static struct keyed *sorted_children(const struct vp_analysis *a, const struct vp_call *c)
{
	struct keyed *k = calloc(c->ncalls + 1, sizeof(*k));

	if (!k)
		abort();
	for (size_t i = 0; i < c->ncalls; i++) {
		k[i].c = c->calls[i];
		k[i].key = shape_key(a, c->calls[i]);
	}
	qsort(k, c->ncalls, sizeof(*k), cmp_keyed);
	return k;
}

static void free_keyed(struct keyed *k, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(k[i].key);
	free(k);
}

static char *shape_key(const struct vp_analysis *a, const struct vp_call *c)
{
	char node[96], *s;
	struct keyed *k = sorted_children(a, c);
	size_t len;

	vp_call_end__node(a, &c->server, node, sizeof(node));
	len = strlen(node) + 3;
	for (size_t i = 0; i < c->ncalls; i++)
		len += strlen(k[i].key) + 1;
	s = malloc(len);
	if (!s)
		abort();
	strcpy(s, node);
	if (c->ncalls) {
		strcat(s, "(");
		for (size_t i = 0; i < c->ncalls; i++) {
			if (i)
				strcat(s, ",");
			strcat(s, k[i].key);
		}
		strcat(s, ")");
	}
	free_keyed(k, c->ncalls);
	return s;
}

static size_t count_nodes(const struct vp_call *c)
{
	size_t n = 1;

	for (size_t i = 0; i < c->ncalls; i++)
		n += count_nodes(c->calls[i]);
	return n;
}

static void add_nodes(const struct vp_analysis *a, struct pattern *p, size_t *idx,
		      const struct vp_call *c, const struct vp_call *parent, int depth, bool init)
{
	struct pnode *nd = &p->nodes[(*idx)++];
	struct keyed *k;

	if (init) {
		char cl[80], sv[80];

		vp_call_end__node(a, &c->client, cl, sizeof(cl));
		vp_call_end__node(a, &c->server, sv, sizeof(sv));
		snprintf(nd->name, sizeof(nd->name), "%s -> %s", cl, sv);
		nd->depth = depth;
	}
	hist_add(&nd->dur, c->end_ns - c->start_ns);
	hist_add(&nd->offset, parent ? c->start_ns - parent->start_ns : 0);
	k = sorted_children(a, c);
	for (size_t i = 0; i < c->ncalls; i++)
		add_nodes(a, p, idx, k[i].c, c, depth + 1, init);
	free_keyed(k, c->ncalls);
}

struct vp_patterns *vp_patterns__new(void)
{
	return calloc(1, sizeof(struct vp_patterns));
}

int vp_patterns__add(struct vp_patterns *ps, const struct vp_analysis *a, const struct vp_request *r)
{
	char *key = shape_key(a, r->root);
	struct pattern *p = NULL;
	size_t idx = 0;
	bool init = false;

	for (size_t i = 0; i < ps->n && !p; i++)
		if (!strcmp(ps->v[i].key, key))
			p = &ps->v[i];
	if (p) {
		free(key);
	} else {
		if (ps->n == ps->cap) {
			size_t cap = ps->cap ? ps->cap * 2 : 16;
			struct pattern *v = realloc(ps->v, cap * sizeof(*v));

			if (!v) {
				free(key);
				return -ENOMEM;
			}
			ps->v = v;
			ps->cap = cap;
		}
		p = &ps->v[ps->n++];
		memset(p, 0, sizeof(*p));
		p->key = key;
		p->nnodes = count_nodes(r->root);
		p->nodes = calloc(p->nnodes, sizeof(*p->nodes));
		if (!p->nodes)
			abort();
		p->example_id = r->id;
		init = true;
	}
	p->count++;
	p->total_ns += (double)(r->root->end_ns - r->root->start_ns);
	add_nodes(a, p, &idx, r->root, NULL, 0, init);
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct pattern *a = x, *b = y;

	return a->total_ns > b->total_ns ? -1 : a->total_ns < b->total_ns;
}

void vp_patterns__print(struct vp_patterns *ps, struct vp_out_ctx *o)
{
	char t[32], m[32], p50[32], p99[32], off[32];

	qsort(ps->v, ps->n, sizeof(*ps->v), by_total);
	for (size_t i = 0; i < ps->n; i++) {
		struct pattern *p = &ps->v[i];

		vp_fmt_duration((int64_t)p->total_ns, t, sizeof(t));
		vp_fmt_duration((int64_t)(p->total_ns / (double)p->count), m, sizeof(m));
		fprintf(o->f, "pattern %zu: %" PRIu64 " requests, total %s, mean %s (e.g. request %" PRIu64 ")\n",
			i + 1, p->count, t, m, p->example_id);
		fprintf(o->f, "  %-56s %10s %10s %10s %10s\n", "call", "start+", "mean", "p50", "p99");
		for (size_t k = 0; k < p->nnodes; k++) {
			struct pnode *nd = &p->nodes[k];
			char name[200];

			snprintf(name, sizeof(name), "%*s%s", nd->depth * 2, "", nd->name);
			vp_fmt_duration((int64_t)(nd->offset.sum / (double)nd->offset.n), off, sizeof(off));
			vp_fmt_duration((int64_t)(nd->dur.sum / (double)nd->dur.n), m, sizeof(m));
			vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.5), p50, sizeof(p50));
			vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.99), p99, sizeof(p99));
			fprintf(o->f, "  %-56s %10s %10s %10s %10s\n", name, off, m, p50, p99);
		}
		fputc('\n', o->f);
	}
}

int vp_patterns__dot(struct vp_patterns *ps, struct vp_out_ctx *o, size_t rank)
{
	struct pattern *p;
	int parent[64] = {0};
	char m[32], off[32], t[32];

	qsort(ps->v, ps->n, sizeof(*ps->v), by_total);
	if (rank < 1 || rank > ps->n)
		return -ENOENT;
	p = &ps->v[rank - 1];
	vp_fmt_duration((int64_t)p->total_ns, t, sizeof(t));
	fprintf(o->f, "digraph pattern%zu {\n  rankdir=TB;\n  node [shape=ellipse];\n", rank);
	fprintf(o->f, "  label=\"pattern %zu: %" PRIu64 " requests, total %s\";\n", rank, p->count, t);
	for (size_t k = 0; k < p->nnodes; k++) {
		struct pnode *nd = &p->nodes[k];
		const char *server = strstr(nd->name, " -> ");

		vp_fmt_duration((int64_t)(nd->dur.sum / (double)nd->dur.n), m, sizeof(m));
		fprintf(o->f, "  n%zu [label=\"%s\\nmean %s\"];\n", k, server ? server + 4 : nd->name, m);
		if (nd->depth > 0 && nd->depth < 64) {
			vp_fmt_duration((int64_t)(nd->offset.sum / (double)nd->offset.n), off, sizeof(off));
			fprintf(o->f, "  n%d -> n%zu [label=\"+%s\"];\n", parent[nd->depth - 1], k, off);
		}
		if (nd->depth < 64)
			parent[nd->depth] = (int)k;
	}
	fprintf(o->f, "}\n");
	return 0;
}

void vp_patterns__free(struct vp_patterns *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->v[i].key);
		free(ps->v[i].nodes);
	}
	free(ps->v);
	free(ps);
}
