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
 *
 * This runs once per request, so it formats nothing on the way: services
 * and clients are interned (a name is made once per distinct service), a
 * tree is flattened into a scratch array in canonical order with a hash of
 * its shape (children ordered by their own shape, so the order of
 * concurrent calls does not split patterns), and patterns are found by that
 * hash, then compared node by node.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "output.h"
#include "sink.h"

#define HBUCKETS 1024 /* 16 per power of two: about 4.4% resolution */
#define NODE_LEN (VPR_HOSTNAME_LEN + VPR_COMM_LEN + VP_LABEL_TEXT + 48)
#define MAX_CLIENTS 4	 /* named per pattern; more are counted as others */
#define FAST_POW2_MAX 46 /* bucket_of: past 2^46 ns, log2 itself */

struct hist {
	uint64_t n;
	double sum;
	uint32_t b[HBUCKETS];
};

/* What makes a service (or a client) the same; zero-filled, compared whole. */
struct name_key {
	int32_t host; /* -1: not recorded */
	uint16_t port;
	uint8_t family;
	uint8_t client;	  /* a client (host process), not a service */
	uint8_t addr[16]; /* only for an end not recorded */
	char proc[VPR_COMM_LEN];
	char what[64]; /* a service: what it was asked (vp_witness_pattern_key), cut; "" unknown */
};

_Static_assert(sizeof(struct name_key) % 8 == 0 && offsetof(struct name_key, what) % 8 == 0,
	       "hash_key reads whole words");

struct name {
	struct name_key k;
	uint32_t id; /* index in vp_patterns.names */
	struct name *same_hash;
	char text[NODE_LEN];
};

struct pnode {
	uint32_t name; /* service */
	uint32_t depth;
	struct hist dur, offset;
};

struct pclient {
	uint32_t name;
	uint64_t count;
};

struct pattern {
	uint64_t hash;
	size_t same_hash; /* next pattern with this hash, index + 1 (0: none) */
	uint64_t count;
	uint64_t exact; /* requests whose every link is exact (evidence.h) */
	double total_ns;
	struct pnode *nodes; /* preorder in canonical order */
	size_t nnodes;
	uint64_t example_id;
	struct pclient clients[MAX_CLIENTS];
	size_t nclients;
	uint64_t other_clients;
};

/* One call of the request being added, in canonical preorder. */
struct flat {
	const struct vp_call *c, *parent;
	uint32_t name, depth;
};

/* A child being ordered: its shape hash, and where its subtree lies in the flat array. */
struct kid {
	uint64_t hash;
	int64_t start_ns;
	size_t at, size;
};

struct vp_patterns {
	struct pattern *v;
	size_t n, cap;
	struct u64map by_hash; /* shape hash -> pattern index + 1 */
	struct name **names;
	size_t nnames, names_cap;
	struct u64map names_by_hash;
	struct flat *flat, *tmp; /* scratch, reused by every request */
	size_t nflat, flat_cap;
	struct kid *kids; /* scratch: a stack of children being ordered */
	size_t nkids, kids_cap;
	size_t last; /* pattern of the last request added */
	/* bucket_of: [e][j] the first value of bucket 16 e + j + 1 (0: not found yet) */
	uint64_t bucket_from[FAST_POW2_MAX][16];
};

/* The log-scale bucket of ns: the one formula every bucket is defined by. */
static int log_bucket(uint64_t ns)
{
	return ns <= 1 ? 0 : (int)(log2((double)ns) * 16);
}

/* The first value of each bucket above 16 e in [2^e, 2^(e+1)), by log_bucket itself. */
static __attribute__((noinline)) void find_firsts(uint64_t from[16], int e)
{
	for (int j = 0; j < 16; j++) {
		uint64_t lo = j ? from[j - 1] : 1ull << e,
			 hi = 2ull << e; /* log_bucket(hi) = 16 (e + 1) */

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (log_bucket(mid) >= 16 * e + j + 1)
				hi = mid;
			else
				lo = mid + 1;
		}
		from[j] = lo;
	}
}

/*
 * The bucket of ns without a log2 per entry: within one power of two, the
 * first value of each of its buckets is found once, by log_bucket itself,
 * so every entry lands where log_bucket puts it.  That holds while log2 is
 * monotonic on the integers, which it is where consecutive integers lie
 * far more than an ulp of log2 apart: below 2^FAST_POW2_MAX (19 hours).
 */
static inline int bucket_of(struct vp_patterns *ps, int64_t ns)
{
	uint64_t *from;
	int e, b = 0;

	if (ns <= 1)
		return 0;
	e = 63 - __builtin_clzll((uint64_t)ns);
	if (e >= FAST_POW2_MAX)
		return log_bucket((uint64_t)ns);
	from = ps->bucket_from[e];
	if (!from[0])
		find_firsts(from, e);
	/* How many of the 16 firsts ns has reached: four halvings over the first 15, then the last. */
	for (int step = 8; step; step /= 2)
		if ((uint64_t)ns >= from[b + step - 1])
			b += step;
	b += b == 15 && (uint64_t)ns >= from[15];
	return 16 * e + b;
}

static void hist_add(struct vp_patterns *ps, struct hist *h, int64_t ns)
{
	int b = bucket_of(ps, ns);

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

static double mean(const struct hist *h)
{
	return h->n ? h->sum / (double)h->n : 0;
}

/* Grow *v (of *cap elements of size sz) to hold at least want; aborts on ENOMEM. */
static void *grow(void *v, size_t *cap, size_t want, size_t sz)
{
	size_t c = *cap ? *cap : 16;

	if (want <= *cap)
		return v;
	while (c < want)
		c *= 2;
	v = realloc(v, c * sz);
	if (!v)
		abort(); /* a pattern table without some requests would mislead */
	*cap = c;
	return v;
}

/* what is empty for most calls (no protocol seen): its zero words are not hashed then. */
static uint64_t hash_key(const struct name_key *k)
{
	uint64_t w[sizeof(*k) / 8], h = 0;
	size_t n = k->what[0] ? sizeof(w) / sizeof(w[0]) : offsetof(struct name_key, what) / 8;

	memcpy(w, k, sizeof(w));
	for (size_t i = 0; i < n; i++)
		h = (h ^ w[i]) * 0x9e3779b97f4a7c15ull + (h >> 29);
	return hash64(h);
}

/* The id of a service (client false) or a client (client true), made on first sight. */
static uint32_t intern(struct vp_patterns *ps, const struct vp_analysis *a,
		       const struct vp_call_end *e, const struct vp_witness *w, bool client)
{
	struct name_key k;
	struct name *n;
	uint64_t h;

	memset(&k, 0, sizeof(k));
	k.client = client;
	k.host = e->recorded ? e->host : -1;
	if (e->recorded) {
		memcpy(k.proc, e->proc, sizeof(k.proc));
		if (!client)
			k.port = e->addr.port;
	} else if (!client) {
		k.port = e->addr.port;
		k.family = e->addr.family;
		memcpy(k.addr, e->addr.addr, sizeof(k.addr));
	}
	/* Endpoints split patterns: GET /cart and GET /item are asked of one service. */
	if (w && w->proto) {
		char key[VP_WIT_TEXT_MAX + VP_WIT_VERB_MAX + 8];

		vp_witness_pattern_key(w, key, sizeof(key));
		memcpy(k.what, key, strnlen(key, sizeof(k.what) - 1));
	}
	h = hash_key(&k);
	for (n = u64map__get(&ps->names_by_hash, h); n; n = n->same_hash) {
		if (!memcmp(&n->k, &k, sizeof(k)))
			return n->id;
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		abort();
	n->k = k;
	n->id = (uint32_t)ps->nnames;
	vp_call_end__name(a, e, client ? VP_NAME_PROCESS : VP_NAME_SERVICE, n->text,
			  sizeof(n->text));
	if (k.what[0]) {
		size_t used = strlen(n->text);

		snprintf(n->text + used, sizeof(n->text) - used, "  %.*s%s", VP_LABEL_TEXT, k.what,
			 strlen(k.what) > VP_LABEL_TEXT ? "..." : "");
	}
	n->same_hash = u64map__get(&ps->names_by_hash, h);
	if (u64map__put(&ps->names_by_hash, h, n))
		abort();
	ps->names = grow(ps->names, &ps->names_cap, ps->nnames + 1, sizeof(*ps->names));
	ps->names[ps->nnames] = n;
	return (uint32_t)ps->nnames++;
}

static int by_shape(const void *x, const void *y)
{
	const struct kid *a = x, *b = y;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	/* Calls of one shape keep their order: the first call to a service stays the first. */
	return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/*
 * Append c's subtree to ps->flat in canonical order (children by shape
 * hash, then start) and return the hash of its shape.
 */
static uint64_t flatten(struct vp_patterns *ps, const struct vp_analysis *a,
			const struct vp_call *c, const struct vp_call *parent, uint32_t depth)
{
	size_t self = ps->nflat, base = ps->nkids;
	uint32_t name = intern(ps, a, &c->server, &c->wit, false);
	uint64_t h = hash64(((uint64_t)name << 20) ^ c->ncalls);
	bool sorted = true;

	ps->flat = grow(ps->flat, &ps->flat_cap, self + 1, sizeof(*ps->flat));
	ps->flat[ps->nflat++] = (struct flat){c, parent, name, depth};
	if (!c->ncalls)
		return h;
	ps->kids = grow(ps->kids, &ps->kids_cap, base + c->ncalls, sizeof(*ps->kids));
	ps->nkids = base + c->ncalls;
	for (size_t i = 0; i < c->ncalls; i++) {
		size_t at = ps->nflat;
		uint64_t kh = flatten(ps, a, c->calls[i], c, depth + 1);

		ps->kids[base + i] = (struct kid){kh, c->calls[i]->start_ns, at, ps->nflat - at};
		if (i && by_shape(&ps->kids[base + i - 1], &ps->kids[base + i]) > 0)
			sorted = false;
	}
	if (!sorted) {
		size_t from = self + 1, n = ps->nflat - from, to = from;

		qsort(ps->kids + base, c->ncalls, sizeof(*ps->kids), by_shape);
		ps->tmp = realloc(ps->tmp, ps->flat_cap * sizeof(*ps->tmp));
		if (!ps->tmp)
			abort();
		memcpy(ps->tmp + from, ps->flat + from, n * sizeof(*ps->flat));
		for (size_t i = 0; i < c->ncalls; i++) {
			const struct kid *k = &ps->kids[base + i];

			memcpy(ps->flat + to, ps->tmp + k->at, k->size * sizeof(*ps->flat));
			to += k->size;
		}
	}
	for (size_t i = 0; i < c->ncalls; i++)
		h = hash64(h ^ (ps->kids[base + i].hash + 0x9e3779b97f4a7c15ull * (i + 1)));
	ps->nkids = base;
	return h;
}

static bool same_shape(const struct pattern *p, const struct flat *f, size_t n)
{
	if (p->nnodes != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p->nodes[i].name != f[i].name || p->nodes[i].depth != f[i].depth)
			return false;
	return true;
}

static struct pattern *new_pattern(struct vp_patterns *ps, uint64_t hash, uint64_t example_id)
{
	struct pattern *p;

	ps->v = grow(ps->v, &ps->cap, ps->n + 1, sizeof(*ps->v));
	p = &ps->v[ps->n];
	memset(p, 0, sizeof(*p));
	p->hash = hash;
	p->example_id = example_id;
	p->nnodes = ps->nflat;
	p->nodes = calloc(p->nnodes, sizeof(*p->nodes));
	if (!p->nodes)
		abort();
	for (size_t i = 0; i < p->nnodes; i++) {
		p->nodes[i].name = ps->flat[i].name;
		p->nodes[i].depth = ps->flat[i].depth;
	}
	p->same_hash = (size_t)(uintptr_t)u64map__get(&ps->by_hash, hash);
	if (u64map__put(&ps->by_hash, hash, (void *)(uintptr_t)(ps->n + 1)))
		abort();
	ps->n++;
	return p;
}

static void count_client(struct pattern *p, uint32_t name)
{
	for (size_t i = 0; i < p->nclients; i++) {
		if (p->clients[i].name == name) {
			p->clients[i].count++;
			return;
		}
	}
	if (p->nclients == MAX_CLIENTS) {
		p->other_clients++;
		return;
	}
	p->clients[p->nclients++] = (struct pclient){name, 1};
}

struct vp_patterns *vp_patterns__new(void)
{
	return calloc(1, sizeof(struct vp_patterns));
}

int vp_patterns__add(struct vp_patterns *ps, const struct vp_analysis *a,
		     const struct vp_request *r)
{
	struct pattern *p = NULL;
	uint64_t hash;
	size_t i;

	ps->nflat = 0;
	hash = flatten(ps, a, r->root, NULL, 0);
	for (i = (size_t)(uintptr_t)u64map__get(&ps->by_hash, hash); i;
	     i = ps->v[i - 1].same_hash) {
		if (same_shape(&ps->v[i - 1], ps->flat, ps->nflat)) {
			p = &ps->v[i - 1];
			break;
		}
	}
	if (!p)
		p = new_pattern(ps, hash, r->id);
	ps->last = (size_t)(p - ps->v);
	p->count++;
	p->exact += r->exact;
	p->total_ns += (double)(r->root->end_ns - r->root->start_ns);
	count_client(p, intern(ps, a, &r->root->client, NULL, true));
	for (i = 0; i < ps->nflat; i++) {
		const struct flat *f = &ps->flat[i];

		hist_add(ps, &p->nodes[i].dur, f->c->end_ns - f->c->start_ns);
		hist_add(ps, &p->nodes[i].offset,
			 f->parent ? f->c->start_ns - f->parent->start_ns : 0);
	}
	return 0;
}

static int by_total(const void *x, const void *y)
{
	const struct pattern *a = *(const struct pattern *const *)x;
	const struct pattern *b = *(const struct pattern *const *)y;

	return a->total_ns > b->total_ns ? -1 : a->total_ns < b->total_ns;
}

/* Patterns by total time, most first (Project 5's ranking); free the array. */
static struct pattern **ranked(struct vp_patterns *ps)
{
	struct pattern **v = calloc(ps->n + 1, sizeof(*v));

	if (!v)
		abort();
	for (size_t i = 0; i < ps->n; i++)
		v[i] = &ps->v[i];
	qsort(v, ps->n, sizeof(*v), by_total);
	return v;
}

static int by_count(const void *x, const void *y)
{
	const struct pclient *a = x, *b = y;

	return a->count > b->count ? -1 : a->count < b->count;
}

static void print_clients(const struct vp_patterns *ps, struct pattern *p, FILE *f)
{
	qsort(p->clients, p->nclients, sizeof(*p->clients), by_count);
	fprintf(f, "  from ");
	for (size_t i = 0; i < p->nclients; i++)
		fprintf(f, "%s%s (%" PRIu64 ")", i ? ", " : "", ps->names[p->clients[i].name]->text,
			p->clients[i].count);
	if (p->other_clients)
		fprintf(f, ", others (%" PRIu64 ")", p->other_clients);
	fputc('\n', f);
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
static void print_node(const struct vp_patterns *ps, FILE *f, const struct pattern *p, size_t k,
		       int width)
{
	const struct pnode *nd = &p->nodes[k];
	char m[32], p50[32], p99[32], off[32];
	int indent = (int)nd->depth * 2;
	struct print_order *kids;
	size_t n = 0;

	vp_fmt_duration((int64_t)mean(&nd->offset), off, sizeof(off));
	vp_fmt_duration((int64_t)mean(&nd->dur), m, sizeof(m));
	vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.5), p50, sizeof(p50));
	vp_fmt_duration((int64_t)hist_quantile(&nd->dur, 0.99), p99, sizeof(p99));
	fprintf(f, "  %*s%-*s %9s %9s %9s %9s\n", indent, "", width - indent,
		ps->names[nd->name]->text, off, m, p50, p99);
	kids = calloc(p->nnodes - k, sizeof(*kids));
	if (!kids)
		abort();
	for (size_t j = k + 1; j < p->nnodes && p->nodes[j].depth > nd->depth; j++)
		if (p->nodes[j].depth == nd->depth + 1)
			kids[n++] = (struct print_order){p->nodes, j};
	qsort(kids, n, sizeof(*kids), by_mean_start);
	for (size_t i = 0; i < n; i++)
		print_node(ps, f, p, kids[i].i, width);
	free(kids);
}

void vp_patterns__print(struct vp_patterns *ps, struct vp_out_ctx *o)
{
	struct pattern **v = ranked(ps);
	char t[32], m[32];

	for (size_t i = 0; i < ps->n; i++) {
		struct pattern *p = v[i];
		int width = (int)strlen("service");

		vp_fmt_duration((int64_t)p->total_ns, t, sizeof(t));
		vp_fmt_duration((int64_t)(p->total_ns / (double)p->count), m, sizeof(m));
		fprintf(o->f,
			"pattern %zu: %" PRIu64
			" requests, total %s, mean %s (e.g. request %" PRIu64 "), %.0f%% exact\n",
			i + 1, p->count, t, m, p->example_id,
			100.0 * (double)p->exact / (double)p->count);
		print_clients(ps, p, o->f);
		/* The name column fits the longest name of this pattern. */
		for (size_t k = 0; k < p->nnodes; k++) {
			int w = (int)p->nodes[k].depth * 2 +
				(int)strlen(ps->names[p->nodes[k].name]->text);

			if (w > width)
				width = w;
		}
		fprintf(o->f, "  %-*s %9s %9s %9s %9s\n", width, "service", "start+", "mean", "p50",
			"p99");
		print_node(ps, o->f, p, 0, width);
		fputc('\n', o->f);
	}
	free(v);
}

int vp_patterns__dot(struct vp_patterns *ps, struct vp_out_ctx *o, size_t rank)
{
	struct pattern **v, *p;
	int parent[64] = {0};
	char m[32], off[32], t[32];

	if (rank < 1 || rank > ps->n)
		return -ENOENT;
	v = ranked(ps);
	p = v[rank - 1];
	free(v);
	vp_fmt_duration((int64_t)p->total_ns, t, sizeof(t));
	fprintf(o->f, "digraph pattern%zu {\n  rankdir=TB;\n  node [shape=ellipse];\n", rank);
	fprintf(o->f, "  label=\"pattern %zu: %" PRIu64 " requests, total %s\";\n", rank, p->count,
		t);
	for (size_t k = 0; k < p->nnodes; k++) {
		struct pnode *nd = &p->nodes[k];

		vp_fmt_duration((int64_t)mean(&nd->dur), m, sizeof(m));
		fprintf(o->f, "  n%zu [label=\"%s\\nmean %s\"];\n", k, ps->names[nd->name]->text,
			m);
		if (nd->depth > 0 && nd->depth < 64) {
			vp_fmt_duration((int64_t)mean(&nd->offset), off, sizeof(off));
			fprintf(o->f, "  n%d -> n%zu [label=\"+%s\"];\n", parent[nd->depth - 1], k,
				off);
		}
		if (nd->depth < 64)
			parent[nd->depth] = (int)k;
	}
	fprintf(o->f, "}\n");
	return 0;
}

size_t vp_patterns__count(const struct vp_patterns *ps)
{
	return ps->n;
}

size_t vp_patterns__last(const struct vp_patterns *ps)
{
	return ps->last;
}

size_t *vp_patterns__ranking(const struct vp_patterns *ps)
{
	struct pattern **v = ranked((struct vp_patterns *)ps);
	size_t *idx = calloc(ps->n + 1, sizeof(*idx));

	if (!idx)
		abort();
	for (size_t i = 0; i < ps->n; i++)
		idx[i] = (size_t)(v[i] - ps->v);
	free(v);
	return idx;
}

void vp_patterns__info(const struct vp_patterns *ps, size_t index, struct vp_pattern_info *out)
{
	const struct pattern *p = &ps->v[index];

	*out = (struct vp_pattern_info){p->count, p->total_ns, p->example_id, p->nnodes};
}

void vp_patterns__node(const struct vp_patterns *ps, size_t index, size_t k,
		       struct vp_pattern_node *out)
{
	const struct pnode *nd = &ps->v[index].nodes[k];

	*out = (struct vp_pattern_node){
		.name = ps->names[nd->name]->text,
		.depth = nd->depth,
		.n = nd->dur.n,
		.start_mean_ns = mean(&nd->offset),
		.mean_ns = mean(&nd->dur),
		.p50_ns = hist_quantile(&nd->dur, 0.5),
		.p99_ns = hist_quantile(&nd->dur, 0.99),
	};
}

void vp_patterns__free(struct vp_patterns *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n; i++)
		free(ps->v[i].nodes);
	for (size_t i = 0; i < ps->nnames; i++)
		free(ps->names[i]);
	free(ps->v);
	free(ps->names);
	u64map__free(&ps->by_hash);
	u64map__free(&ps->names_by_hash);
	free(ps->flat);
	free(ps->tmp);
	free(ps->kids);
	free(ps);
}

static int patterns_open(struct vp_sink *s, char *err, size_t errlen)
{
	s->state = vp_patterns__new();
	if (!s->state)
		snprintf(err, errlen, "out of memory");
	return s->state ? 0 : -1;
}

static void patterns_request(struct vp_sink *s, const struct vp_request *r)
{
	if (vp_patterns__add(s->state, s->out->a, r))
		fprintf(stderr, "warning: out of memory, request %" PRIu64 " not counted\n", r->id);
}

static int patterns_finish(struct vp_sink *s, bool complete)
{
	vp_patterns__print(s->state, s->out);
	return 0;
}

static void patterns_free(struct vp_sink *s)
{
	vp_patterns__free(s->state);
}

const struct vp_sink_ops vp_sink_patterns = {.name = "patterns",
					     .open = patterns_open,
					     .request = patterns_request,
					     .finish = patterns_finish,
					     .free = patterns_free};

/* dot --pattern: the patterns counted the same way, one of them drawn. */
static void dot_pattern_request(struct vp_sink *s, const struct vp_request *r)
{
	vp_patterns__add(s->state, s->out->a, r);
}

static int dot_pattern_finish(struct vp_sink *s, bool complete)
{
	if (!vp_patterns__dot(s->state, s->out, s->opts->pattern))
		return 0;
	fprintf(stderr, "error: no pattern %" PRIu64 "\n", s->opts->pattern);
	return -1;
}

const struct vp_sink_ops vp_sink_dot_pattern = {.name = "dot-pattern",
						.open = patterns_open,
						.request = dot_pattern_request,
						.finish = dot_pattern_finish,
						.free = patterns_free};
