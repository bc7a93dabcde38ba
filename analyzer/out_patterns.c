// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Path patterns (Project 5 §5.4): requests whose call trees have the same
 * shape (the same services called in the same nesting) are one pattern.  A
 * node is a service: host, process name and server port ("web nginx :80"),
 * or the address of a server that was not recorded.  Threads do not count:
 * the same path served by another worker, or sent by another client thread,
 * is the same pattern.  Who sent the requests (client host and process) is
 * counted per pattern but does not split it.  Per pattern: how many
 * requests, their total time; per node: mean, p50 and p99 of its duration
 * and of its start after its parent's start.  Distributions are log-scale
 * histograms, so memory is per pattern, not per request.
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

#define NODE_LEN (VPR_HOSTNAME_LEN + VPR_COMM_LEN + 40)
#define MAX_CLIENTS 4 /* named per pattern; more are counted as others */

struct pnode {
	char name[NODE_LEN];
	int depth;
	struct hist dur, offset;
};

struct pclient {
	char name[NODE_LEN];
	uint64_t count;
};

struct pattern {
	char *key;
	uint64_t count;
	double total_ns;
	struct pnode *nodes; /* preorder in canonical order */
	size_t nnodes;
	uint64_t example_id;
	struct pclient clients[MAX_CLIENTS];
	size_t nclients;
	uint64_t other_clients;
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
	const struct keyed *a = x, *b = y;
	int d = strcmp(a->key, b->key);

	/* Calls of one shape keep their order: the first call to a service stays the first. */
	if (d)
		return d;
	return a->c->start_ns < b->c->start_ns ? -1 : a->c->start_ns > b->c->start_ns;
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
	char node[NODE_LEN], *s;
	struct keyed *k = sorted_children(a, c);
	size_t len;

	vp_call_end__name(a, &c->server, VP_NAME_SERVICE, node, sizeof(node));
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
		vp_call_end__name(a, &c->server, VP_NAME_SERVICE, nd->name, sizeof(nd->name));
		nd->depth = depth;
	}
	hist_add(&nd->dur, c->end_ns - c->start_ns);
	hist_add(&nd->offset, parent ? c->start_ns - parent->start_ns : 0);
	k = sorted_children(a, c);
	for (size_t i = 0; i < c->ncalls; i++)
		add_nodes(a, p, idx, k[i].c, c, depth + 1, init);
	free_keyed(k, c->ncalls);
}

static void count_client(const struct vp_analysis *a, struct pattern *p,
			 const struct vp_call_end *e)
{
	char name[NODE_LEN];

	vp_call_end__name(a, e, VP_NAME_PROCESS, name, sizeof(name));
	for (size_t i = 0; i < p->nclients; i++) {
		if (!strcmp(p->clients[i].name, name)) {
			p->clients[i].count++;
			return;
		}
	}
	if (p->nclients == MAX_CLIENTS) {
		p->other_clients++;
		return;
	}
	memcpy(p->clients[p->nclients].name, name, sizeof(name));
	p->clients[p->nclients++].count = 1;
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
	count_client(a, p, &r->root->client);
	add_nodes(a, p, &idx, r->root, NULL, 0, init);
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct pattern *a = x, *b = y;

	return a->total_ns > b->total_ns ? -1 : a->total_ns < b->total_ns;
}

static int by_count(const void *x, const void *y)
{
	const struct pclient *a = x, *b = y;

	return a->count > b->count ? -1 : a->count < b->count;
}

static void print_clients(struct pattern *p, FILE *f)
{
	qsort(p->clients, p->nclients, sizeof(*p->clients), by_count);
	fprintf(f, "  from ");
	for (size_t i = 0; i < p->nclients; i++)
		fprintf(f, "%s%s (%" PRIu64 ")", i ? ", " : "", p->clients[i].name, p->clients[i].count);
	if (p->other_clients)
		fprintf(f, ", others (%" PRIu64 ")", p->other_clients);
	fputc('\n', f);
}

static double mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

struct print_order {
	const struct pnode *nodes;
	size_t i;
};

static int by_mean_start(const void *x, const void *y)
{
	const struct print_order *a = x, *b = y;
	double sa = mean(&a->nodes[a->i].offset), sb = mean(&b->nodes[b->i].offset);

	if (sa != sb)
		return sa < sb ? -1 : 1;
	return a->i < b->i ? -1 : 1;
}

/* Node k, then its children in the order they start on average. */
static void print_node(FILE *f, const struct pattern *p, size_t k, int width)
{
	const struct pnode *nd = &p->nodes[k];
	char m[32], p50[32], p99[32], off[32];
	struct print_order *kids;
	size_t n = 0;

	vp_fmt_duration((int64_t)mean(&nd->offset), off, sizeof(off));
	vp_fmt_duration((int64_t)mean(&nd->dur), m, sizeof(m));
	vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.5), p50, sizeof(p50));
	vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.99), p99, sizeof(p99));
	fprintf(f, "  %*s%-*s %9s %9s %9s %9s\n", nd->depth * 2, "", width - nd->depth * 2, nd->name,
		off, m, p50, p99);
	kids = calloc(p->nnodes - k, sizeof(*kids));
	if (!kids)
		abort();
	for (size_t j = k + 1; j < p->nnodes && p->nodes[j].depth > nd->depth; j++)
		if (p->nodes[j].depth == nd->depth + 1)
			kids[n++] = (struct print_order){p->nodes, j};
	qsort(kids, n, sizeof(*kids), by_mean_start);
	for (size_t i = 0; i < n; i++)
		print_node(f, p, kids[i].i, width);
	free(kids);
}

void vp_patterns__print(struct vp_patterns *ps, struct vp_out_ctx *o)
{
	char t[32], m[32];

	qsort(ps->v, ps->n, sizeof(*ps->v), by_total);
	for (size_t i = 0; i < ps->n; i++) {
		struct pattern *p = &ps->v[i];
		int width = (int)strlen("service");

		vp_fmt_duration((int64_t)p->total_ns, t, sizeof(t));
		vp_fmt_duration((int64_t)(p->total_ns / (double)p->count), m, sizeof(m));
		fprintf(o->f, "pattern %zu: %" PRIu64 " requests, total %s, mean %s (e.g. request %" PRIu64 ")\n",
			i + 1, p->count, t, m, p->example_id);
		print_clients(p, o->f);
		/* The name column fits the longest name of this pattern. */
		for (size_t k = 0; k < p->nnodes; k++) {
			int w = p->nodes[k].depth * 2 + (int)strlen(p->nodes[k].name);

			if (w > width)
				width = w;
		}
		fprintf(o->f, "  %-*s %9s %9s %9s %9s\n", width, "service", "start+", "mean", "p50", "p99");
		print_node(o->f, p, 0, width);
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

		vp_fmt_duration((int64_t)(nd->dur.sum / (double)nd->dur.n), m, sizeof(m));
		fprintf(o->f, "  n%zu [label=\"%s\\nmean %s\"];\n", k, nd->name, m);
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
