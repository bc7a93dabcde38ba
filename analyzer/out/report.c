// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report's data (docs/report.md).  Requests stream through once:
 * each goes into its pattern (patterns.c), its pattern's latency histogram
 * and the service graph's edges; only the slowest requests overall and the
 * slowest few of each pattern are kept, already as JSON (a request kept in
 * both lists is written once).  Memory follows the number of patterns and
 * services, not of requests.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fnv.h"
#include "hashmap.h"
#include "loglines.h"
#include "output.h"
#include "report.h"

#define BUCKETS_PER_OCTAVE 4
#define NBUCKETS (64 * BUCKETS_PER_OCTAVE)
#define NAME_LEN (VP_ADDRSTRLEN + VPR_HOSTNAME_LEN + VPR_COMM_LEN + 40)
#define MAX_LOSSES_SHOWN 500 /* per host: the page draws them, it need not list them all */
#define MAX_LINES_SHOWN 200  /* per call: the page stays small; `paths --json` has them all */

struct kept {
	int64_t dur;
	uint64_t id;
	cJSON *json;
};

/* The N slowest seen so far; the fastest kept one is replaced first. */
struct slowest {
	struct kept *v;
	size_t n, cap;
};

struct pstat {
	uint32_t hist[NBUCKETS];
	uint64_t incomplete, inexact;
	struct slowest top;
};

struct edge {
	char from[NAME_LEN], to[NAME_LEN];
	uint32_t depth; /* depth of the calls (the entry is 0), smallest seen */
	uint64_t count, inferred, incomplete;
	double sum_ns;
	int64_t max_ns;
	struct edge *same_hash;
};

struct vp_report {
	struct vp_report_opts o;
	struct vp_patterns *patterns;
	struct pstat *ps;
	size_t nps;
	struct slowest slow;
	struct u64map edges_by_hash;
	struct edge **edges;
	size_t nedges;
	bool have_origin;
	int64_t origin; /* common timeline: requests' starts are kept from here */
	uint64_t requests, calls, complete, exact, one_way;
	int64_t first_start, last_end;
};

struct vp_report *vp_report__new(const struct vp_report_opts *opts)
{
	struct vp_report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return NULL;
	rep->o = *opts;
	rep->o.slowest = rep->o.slowest ? rep->o.slowest : 20;
	rep->o.per_pattern = rep->o.per_pattern ? rep->o.per_pattern : 5;
	rep->o.patterns = rep->o.patterns ? rep->o.patterns : 50;
	rep->patterns = vp_patterns__new();
	if (!rep->patterns) {
		free(rep);
		return NULL;
	}
	return rep;
}

static int64_t duration_of(const struct vp_request *r)
{
	return r->root->end_ns - r->root->start_ns;
}

static void add_num(cJSON *o, const char *k, double v)
{
	cJSON_AddNumberToObject(o, k, v);
}

/*
 * The lines its server wrote for the call (loglines.h), shown on a click on
 * its row: time after the request's start, thread, text, how it was linked.
 * The text is the application's, untrusted: it stays data (JSON inside the
 * page, escaped by put_script_safe; the script sets it as text, never HTML).
 */
static void logs_json(const struct vp_call *c, int64_t base, cJSON *row)
{
	cJSON *arr;
	size_t n = 0, more = 0;

	if (!c->logs)
		return;
	arr = cJSON_AddArrayToObject(row, "logs");
	for (const struct vp_logline *l = c->logs; l; l = l->next) {
		cJSON *o;

		if (n++ >= MAX_LINES_SHOWN) {
			more++;
			continue;
		}
		o = cJSON_CreateObject();
		add_num(o, "t", (double)(l->at_ns - base));
		add_num(o, "tid", l->tid);
		cJSON_AddStringToObject(o, "text", l->text);
		cJSON_AddBoolToObject(o, "exact", l->link.exact);
		cJSON_AddStringToObject(o, "basis", vp_basis_name(l->link.basis));
		if (l->cut)
			cJSON_AddBoolToObject(o, "cut", true);
		cJSON_AddItemToArray(arr, o);
	}
	if (more)
		add_num(row, "logs_more", (double)more);
}

/* Calls in preorder, each with its parent's position: the waterfall's rows. */
static void flatten(const struct vp_analysis *a, const struct vp_call *c, int parent, int depth,
		    int64_t base, cJSON *rows)
{
	cJSON *o = cJSON_CreateObject();
	int me = cJSON_GetArraySize(rows);
	char name[NAME_LEN];

	add_num(o, "p", parent);
	add_num(o, "d", depth);
	cJSON_AddStringToObject(
		o, "client", vp_call_end__name(a, &c->client, VP_NAME_THREAD, name, sizeof(name)));
	cJSON_AddStringToObject(
		o, "service",
		vp_call_end__name(a, &c->server, VP_NAME_SERVICE, name, sizeof(name)));
	cJSON_AddStringToObject(
		o, "server", vp_call_end__name(a, &c->server, VP_NAME_THREAD, name, sizeof(name)));
	add_num(o, "s", (double)(c->start_ns - base));
	add_num(o, "e", (double)(c->end_ns - base));
	if (c->server.recorded) {
		add_num(o, "ss", (double)(vp_call__server_start(c) - base));
		add_num(o, "se", (double)(vp_call__server_end(c) - base));
	}
	add_num(o, "rq", (double)c->request_bytes);
	add_num(o, "rp", (double)c->reply_bytes);
	cJSON_AddStringToObject(o, "basis", vp_basis_name(c->link.basis));
	cJSON_AddBoolToObject(o, "exact", c->link.exact);
	add_num(o, "cand", c->link.candidates);
	if (c->link.basis == VP_BASIS_QUEUED) /* an asynchronous hop: its time in the queue */
		add_num(o, "q", (double)c->queue_ns);
	cJSON_AddStringToObject(o, "outcome", vp_outcome_name(vp_call__outcome(c)));
	if (c->may_hand_off) /* its work may go on elsewhere, unlinked (handoff.h) */
		cJSON_AddBoolToObject(o, "handoff", true);
	if (c->setup_ns)
		add_num(o, "setup", (double)c->setup_ns);
	if (c->wit.proto) { /* what the call was (proto/proto.h) */
		char w[VP_LABEL_TEXT + VP_WIT_VERB_MAX + VP_WIT_ERR_MAX + 32];

		cJSON_AddStringToObject(o, "w",
					vp_witness_label(&c->wit, VP_LABEL_TEXT, w, sizeof(w)));
	}
	logs_json(c, base, o);
	cJSON_AddItemToArray(rows, o);
	for (size_t i = 0; i < c->ncalls; i++)
		flatten(a, c->calls[i], me, depth + 1, base, rows);
}

static cJSON *request_json(struct vp_report *rep, const struct vp_analysis *a,
			   const struct vp_request *r, size_t pattern)
{
	cJSON *o = cJSON_CreateObject();

	add_num(o, "id", (double)r->id);
	add_num(o, "pattern", (double)pattern);
	add_num(o, "start", (double)(r->root->start_ns - rep->origin));
	add_num(o, "dur", (double)duration_of(r));
	cJSON_AddBoolToObject(o, "complete", r->complete);
	cJSON_AddBoolToObject(o, "exact", r->exact);
	add_num(o, "hosts", (double)r->nhosts);
	flatten(a, r->root, -1, 0, r->root->start_ns, cJSON_AddArrayToObject(o, "calls"));
	return o;
}

/* Keeps r (as JSON) if it is among the max slowest. */
static void keep(struct vp_report *rep, struct slowest *s, size_t max, const struct vp_analysis *a,
		 const struct vp_request *r, size_t pattern)
{
	int64_t dur = duration_of(r);
	size_t at = s->n;

	if (s->n == max) {
		size_t min = 0;

		for (size_t i = 1; i < s->n; i++)
			if (s->v[i].dur < s->v[min].dur)
				min = i;
		if (s->v[min].dur >= dur)
			return;
		cJSON_Delete(s->v[min].json);
		at = min;
	} else {
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 4;
			s->v = realloc(s->v, s->cap * sizeof(*s->v));
			if (!s->v)
				abort();
		}
		s->n++;
	}
	s->v[at] = (struct kept){dur, r->id, request_json(rep, a, r, pattern)};
}

static uint64_t hash_str(uint64_t h, const char *s)
{
	return vp_fnv1a(h, s, strlen(s));
}

static void count_edge(struct vp_report *rep, const char *from, const char *to, uint32_t depth,
		       const struct vp_call *c)
{
	uint64_t h = hash64(hash_str(hash_str(VP_FNV_BASIS, from) ^ 0xff, to));
	struct edge *e;
	int64_t dur = c->end_ns - c->start_ns;

	for (e = u64map__get(&rep->edges_by_hash, h); e; e = e->same_hash)
		if (!strcmp(e->from, from) && !strcmp(e->to, to))
			break;
	if (!e) {
		struct edge **v = realloc(rep->edges, (rep->nedges + 1) * sizeof(*v));

		e = calloc(1, sizeof(*e));
		if (!v || !e)
			abort();
		rep->edges = v;
		snprintf(e->from, sizeof(e->from), "%s", from);
		snprintf(e->to, sizeof(e->to), "%s", to);
		e->depth = depth;
		e->same_hash = u64map__get(&rep->edges_by_hash, h);
		if (u64map__put(&rep->edges_by_hash, h, e))
			abort();
		rep->edges[rep->nedges++] = e;
	}
	e->count++;
	e->sum_ns += (double)dur;
	if (dur > e->max_ns)
		e->max_ns = dur;
	if (depth < e->depth)
		e->depth = depth;
	e->inferred += !c->link.exact && c->link.basis != VP_BASIS_ROOT;
	e->incomplete += vp_call__outcome(c) == VP_OUTCOME_INCOMPLETE;
}

static void walk_edges(struct vp_report *rep, const struct vp_analysis *a, const struct vp_call *c,
		       const char *from, uint32_t depth)
{
	char to[NAME_LEN];

	vp_call_end__name(a, &c->server, VP_NAME_SERVICE, to, sizeof(to));
	count_edge(rep, from, to, depth, c);
	rep->calls++;
	rep->one_way += vp_call__outcome(c) == VP_OUTCOME_ONE_WAY;
	for (size_t i = 0; i < c->ncalls; i++)
		walk_edges(rep, a, c->calls[i], to, depth + 1);
}

void vp_report__add(struct vp_report *rep, const struct vp_analysis *a, const struct vp_request *r)
{
	int64_t dur = duration_of(r);
	size_t p;
	struct pstat *ps;
	char from[NAME_LEN];
	int b = dur <= 1 ? 0 : (int)(log2((double)dur) * BUCKETS_PER_OCTAVE);

	if (!rep->have_origin) {
		rep->origin = r->root->start_ns;
		rep->first_start = r->root->start_ns;
		rep->last_end = r->root->end_ns;
		rep->have_origin = true;
	}
	if (r->root->start_ns < rep->first_start)
		rep->first_start = r->root->start_ns;
	if (r->root->end_ns > rep->last_end)
		rep->last_end = r->root->end_ns;
	vp_patterns__add(rep->patterns, a, r);
	p = vp_patterns__last(rep->patterns);
	if (p >= rep->nps) {
		size_t n = vp_patterns__count(rep->patterns);

		rep->ps = realloc(rep->ps, n * sizeof(*rep->ps));
		if (!rep->ps)
			abort();
		memset(rep->ps + rep->nps, 0, (n - rep->nps) * sizeof(*rep->ps));
		rep->nps = n;
	}
	ps = &rep->ps[p];
	ps->hist[b < NBUCKETS ? b : NBUCKETS - 1]++;
	ps->incomplete += !r->complete;
	ps->inexact += !r->exact;
	rep->requests++;
	rep->complete += r->complete;
	rep->exact += r->exact;
	keep(rep, &ps->top, rep->o.per_pattern, a, r, p);
	keep(rep, &rep->slow, rep->o.slowest, a, r, p);
	walk_edges(rep, a, r->root,
		   vp_call_end__name(a, &r->root->client, VP_NAME_PROCESS, from, sizeof(from)), 0);
}

static int by_dur_desc(const void *x, const void *y)
{
	const struct kept *a = x, *b = y;

	return a->dur > b->dur ? -1 : a->dur < b->dur;
}

static cJSON *ids_json(struct slowest *s)
{
	cJSON *v = cJSON_CreateArray();

	qsort(s->v, s->n, sizeof(*s->v), by_dur_desc);
	for (size_t i = 0; i < s->n; i++)
		cJSON_AddItemToArray(v, cJSON_CreateNumber((double)s->v[i].id));
	return v;
}

/* Moves the kept requests' JSON into `into` (keyed by id), each once. */
static void move_requests(struct slowest *s, cJSON *into)
{
	char key[24];

	for (size_t i = 0; i < s->n; i++) {
		snprintf(key, sizeof(key), "%" PRIu64, s->v[i].id);
		if (!cJSON_GetObjectItemCaseSensitive(into, key))
			cJSON_AddItemToObject(into, key, s->v[i].json);
		else
			cJSON_Delete(s->v[i].json);
		s->v[i].json = NULL;
	}
}

static cJSON *patterns_json(struct vp_report *rep, cJSON *requests)
{
	size_t n = vp_patterns__count(rep->patterns), *rank = vp_patterns__ranking(rep->patterns);
	cJSON *v = cJSON_CreateArray();

	for (size_t r = 0; r < n && r < rep->o.patterns; r++) {
		struct pstat *ps = &rep->ps[rank[r]];
		struct vp_pattern_info pi;
		cJSON *o = cJSON_CreateObject(), *nodes, *hist;

		vp_patterns__info(rep->patterns, rank[r], &pi);
		add_num(o, "rank", (double)r + 1);
		add_num(o, "index", (double)rank[r]);
		add_num(o, "count", (double)pi.count);
		add_num(o, "total", pi.total_ns);
		add_num(o, "incomplete", (double)ps->incomplete);
		add_num(o, "inexact", (double)ps->inexact);
		nodes = cJSON_AddArrayToObject(o, "nodes");
		for (size_t k = 0; k < pi.nnodes; k++) {
			struct vp_pattern_node nd;
			cJSON *no = cJSON_CreateObject();

			vp_patterns__node(rep->patterns, rank[r], k, &nd);
			cJSON_AddStringToObject(no, "name", nd.name);
			add_num(no, "d", nd.depth);
			add_num(no, "n", (double)nd.n);
			add_num(no, "start", round(nd.start_mean_ns));
			add_num(no, "mean", round(nd.mean_ns));
			add_num(no, "p50", round(nd.p50_ns));
			add_num(no, "p99", round(nd.p99_ns));
			cJSON_AddItemToArray(nodes, no);
		}
		/* Sparse [bucket, count] pairs; bucket b is [2^(b/4), 2^((b+1)/4)) ns. */
		hist = cJSON_AddArrayToObject(o, "hist");
		for (int b = 0; b < NBUCKETS; b++) {
			if (!ps->hist[b])
				continue;
			cJSON *pair = cJSON_CreateArray();

			cJSON_AddItemToArray(pair, cJSON_CreateNumber(b));
			cJSON_AddItemToArray(pair, cJSON_CreateNumber(ps->hist[b]));
			cJSON_AddItemToArray(hist, pair);
		}
		cJSON_AddItemToObject(o, "slowest", ids_json(&ps->top));
		move_requests(&ps->top, requests);
		cJSON_AddItemToArray(v, o);
	}
	free(rank);
	return v;
}

static cJSON *hosts_json(struct vp_report *rep, const struct vp_analysis *a, int64_t t0)
{
	cJSON *v = cJSON_CreateArray();

	for (size_t h = 0; h < vp_analysis__nhosts(a); h++) {
		const struct vp_host *ho = vp_analysis__host(a, h);
		int64_t off = vp_analysis__offset(a, h);
		cJSON *o = cJSON_CreateObject(), *losses, *files;
		char how[64];

		cJSON_AddStringToObject(o, "name", ho->name);
		add_num(o, "records", (double)ho->records);
		add_num(o, "lost", (double)ho->lost);
		add_num(o, "late", (double)ho->late);
		add_num(o, "skipped", (double)ho->skipped);
		add_num(o, "offset", (double)off);
		cJSON_AddStringToObject(o, "clock",
					vp_analysis__clock_source(a, h, how, sizeof(how)));
		cJSON_AddBoolToObject(o, "truncated", ho->truncated);
		if (ho->damage[0])
			cJSON_AddStringToObject(o, "damage", ho->damage);
		if (ho->records) {
			add_num(o, "first", (double)((int64_t)ho->first_ts + off - t0));
			add_num(o, "last", (double)((int64_t)ho->last_ts + off - t0));
		}
		files = cJSON_AddArrayToObject(o, "files");
		for (int f = 0; f < ho->nrecordings; f++)
			cJSON_AddItemToArray(files, cJSON_CreateString(ho->recordings[f]));
		losses = cJSON_AddArrayToObject(o, "losses");
		for (size_t i = 0; i < ho->nlosses && i < MAX_LOSSES_SHOWN; i++) {
			cJSON *l = cJSON_CreateObject();

			add_num(l, "from", (double)((int64_t)ho->losses[i].from_ns + off - t0));
			add_num(l, "to", (double)((int64_t)ho->losses[i].to_ns + off - t0));
			add_num(l, "lost", (double)ho->losses[i].lost);
			cJSON_AddItemToArray(losses, l);
		}
		add_num(o, "nlosses", (double)ho->nlosses);
		cJSON_AddItemToArray(v, o);
	}
	(void)rep;
	return v;
}

static cJSON *edges_json(const struct vp_report *rep)
{
	cJSON *v = cJSON_CreateArray();

	for (size_t i = 0; i < rep->nedges; i++) {
		const struct edge *e = rep->edges[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "from", e->from);
		cJSON_AddStringToObject(o, "to", e->to);
		add_num(o, "d", e->depth);
		add_num(o, "count", (double)e->count);
		add_num(o, "mean", round(e->sum_ns / (double)e->count));
		add_num(o, "max", (double)e->max_ns);
		add_num(o, "inferred", (double)e->inferred);
		add_num(o, "incomplete", (double)e->incomplete);
		cJSON_AddItemToArray(v, o);
	}
	return v;
}

/*
 * JSON inside <script>: "</script" would end the element and "<!--" with
 * "<script" would keep it from ending (HTML's script data states).  A '<'
 * can only be inside a JSON string, where \u003c is the same character, so
 * none is left.  Names, witnesses and log lines are untrusted text.
 */
static void put_script_safe(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("\\u003c", f);
		else
			fputc(*s, f);
	}
}

int vp_report__write(struct vp_report *rep, const struct vp_analysis *a, int64_t t0, FILE *f)
{
	cJSON *doc = cJSON_CreateObject(), *meta, *requests;
	char *text;

	meta = cJSON_AddObjectToObject(doc, "meta");
	add_num(meta, "requests", (double)rep->requests);
	add_num(meta, "calls", (double)rep->calls);
	add_num(meta, "complete", (double)rep->complete);
	add_num(meta, "exact", (double)rep->exact);
	add_num(meta, "one_way", (double)rep->one_way);
	add_num(meta, "patterns", (double)vp_patterns__count(rep->patterns));
	add_num(meta, "origin", (double)(rep->origin - t0));
	add_num(meta, "first", (double)(rep->first_start - t0));
	add_num(meta, "last", (double)(rep->last_end - t0));
	add_num(meta, "unix_t0_ms", floor((double)(t0 + vp_out_unix_epoch(a)) / 1e6));
	add_num(meta, "buckets_per_octave", BUCKETS_PER_OCTAVE);
	requests = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "patterns", patterns_json(rep, requests));
	cJSON_AddItemToObject(doc, "slowest", ids_json(&rep->slow));
	move_requests(&rep->slow, requests);
	cJSON_AddItemToObject(doc, "requests", requests);
	cJSON_AddItemToObject(doc, "edges", edges_json(rep));
	cJSON_AddItemToObject(doc, "hosts", hosts_json(rep, a, t0));
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		return -ENOMEM;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>vpath report</title>\n<style>\n",
	      f);
	fputs(vp_report_css, f);
	fputs("</style></head>\n<body>\n<noscript>This report draws itself with "
	      "JavaScript.</noscript>\n"
	      "<script type=\"application/json\" id=\"vpath-data\">",
	      f);
	put_script_safe(f, text);
	fputs("</script>\n<script>\n", f);
	fputs(vp_report_js, f);
	fputs("</script>\n</body></html>\n", f);
	free(text);
	return ferror(f) ? -EIO : 0;
}

static void free_slowest(struct slowest *s)
{
	for (size_t i = 0; i < s->n; i++)
		cJSON_Delete(s->v[i].json);
	free(s->v);
}

void vp_report__free(struct vp_report *rep)
{
	if (!rep)
		return;
	for (size_t i = 0; i < rep->nps; i++)
		free_slowest(&rep->ps[i].top);
	free(rep->ps);
	free_slowest(&rep->slow);
	for (size_t i = 0; i < rep->nedges; i++)
		free(rep->edges[i]);
	free(rep->edges);
	u64map__free(&rep->edges_by_hash);
	vp_patterns__free(rep->patterns);
	free(rep);
}
