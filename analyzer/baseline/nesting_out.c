// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Baseline output stage: the nesting algorithm's patterns as text and JSON (nesting.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/nesting.h"
#include "output.h"

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

struct stats {
	double mean, p50, p99;
};

static struct stats stats_of(const double *v, size_t n)
{
	struct stats s = {0};
	double *c = malloc((n + 1) * sizeof(*c)), sum = 0;

	if (!c || !n) {
		free(c);
		return s;
	}
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), by_value);
	for (size_t i = 0; i < n; i++)
		sum += c[i];
	s.mean = sum / (double)n;
	s.p50 = c[(size_t)(0.5 * (double)(n - 1))];
	s.p99 = c[(size_t)(0.99 * (double)(n - 1))];
	free(c);
	return s;
}

/* The paper's per-node parallelism: candidate parents per call that had any. */
static double parallelism(const struct vp_nesting *n)
{
	size_t inner = 0;

	for (size_t i = 0; i < n->npairs; i++)
		inner += n->pairs[i].ncand > 0;
	return inner ? (double)n->candidates / (double)inner : 0.0;
}

void vp_nesting__print(const struct vp_nesting *n, const struct vp_btrace *t, FILE *f)
{
	fprintf(f,
		"nesting (Project 5 §5.1): %zu call pairs, %" PRIu64
		" calls without a return dropped, "
		"mean parallelism %.1f candidate parents; statistical, never exact\n\n",
		n->npairs, n->unmatched, parallelism(n));
	for (size_t i = 0; i < n->npatterns; i++) {
		const struct vp_npattern *p = &n->patterns[i];
		char tot[32], m[32];
		int width = (int)strlen("service");

		vp_fmt_duration((int64_t)p->total_ns, tot, sizeof(tot));
		vp_fmt_duration((int64_t)(p->total_ns / (double)p->count), m, sizeof(m));
		fprintf(f, "pattern %zu: %" PRIu64 " paths, total %s, mean %s\n", i + 1, p->count,
			tot, m);
		fprintf(f, "  from %s\n", t->nodes[p->from].name);
		for (size_t k = 0; k < p->nnodes; k++) {
			int w = (int)p->nodes[k].depth * 2 +
				(int)strlen(t->nodes[p->nodes[k].node].name);

			if (w > width)
				width = w;
		}
		fprintf(f, "  %-*s %9s %9s %9s %9s\n", width, "service", "start+", "mean", "p50",
			"p99");
		for (size_t k = 0; k < p->nnodes; k++) {
			const struct vp_npnode *nd = &p->nodes[k];
			struct stats lat = stats_of(nd->lat, nd->n), d = stats_of(nd->delay, nd->n);
			char off[32], a[32], b[32], c[32];
			int indent = (int)nd->depth * 2;

			vp_fmt_duration((int64_t)d.mean, off, sizeof(off));
			vp_fmt_duration((int64_t)lat.mean, a, sizeof(a));
			vp_fmt_duration((int64_t)lat.p50, b, sizeof(b));
			vp_fmt_duration((int64_t)lat.p99, c, sizeof(c));
			fprintf(f, "  %*s%-*s %9s %9s %9s %9s\n", indent, "", width - indent,
				t->nodes[nd->node].name, off, a, b, c);
		}
		fputc('\n', f);
	}
}

static void json_call(const struct vp_nesting *n, const struct vp_btrace *t, uint32_t i, FILE *f)
{
	const struct vp_nest_pair *p = &n->pairs[i];
	const struct vp_bcall *c = &t->calls[p->call];
	char cli[VP_ADDRSTRLEN], srv[VP_ADDRSTRLEN];

	fprintf(f,
		"{\"client\":{\"addr\":\"%s\",\"node\":%u},\"server\":{\"addr\":\"%s\",\"node\":%u}"
		","
		"\"conn_index\":%u,\"start_ns\":%" PRId64 ",\"end_ns\":%" PRId64
		",\"duration_ns\":%" PRId64 ",\"candidates\":%u,\"calls\":[",
		vp_endpoint__format(&c->client, cli, sizeof(cli)), p->a,
		vp_endpoint__format(&c->server, srv, sizeof(srv)), p->b, c->conn_index, p->t1,
		p->t4, p->t4 - p->t1, p->ncand);
	for (uint32_t k = 0; k < p->nkids; k++) {
		if (k)
			fputc(',', f);
		json_call(n, t, p->kids[k], f);
	}
	fputs("]}", f);
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void vp_nesting__print_json(const struct vp_nesting *n, const struct vp_btrace *t, FILE *f)
{
	uint64_t id = 0;

	fputs("{\"version\":2,\"method\":\"nesting\",\"nodes\":[", f);
	for (size_t i = 0; i < t->nnodes; i++) {
		fputs(i ? "," : "", f);
		json_string(f, t->nodes[i].name);
	}
	fprintf(f, "],\"pairs\":%zu,\"unmatched\":%" PRIu64 ",\"parallelism\":%.2f,\"patterns\":[",
		n->npairs, n->unmatched, parallelism(n));
	for (size_t i = 0; i < n->npatterns; i++) {
		const struct vp_npattern *p = &n->patterns[i];

		fprintf(f, "%s{\"rank\":%zu,\"shape\":", i ? "," : "", i + 1);
		json_string(f, p->key);
		fprintf(f, ",\"from\":%u,\"count\":%" PRIu64 ",\"total_ns\":%.0f,\"nodes\":[",
			p->from, p->count, p->total_ns);
		for (size_t k = 0; k < p->nnodes; k++) {
			const struct vp_npnode *nd = &p->nodes[k];
			struct stats lat = stats_of(nd->lat, nd->n), d = stats_of(nd->delay, nd->n);

			fprintf(f,
				"%s{\"node\":%u,\"depth\":%u,\"delay_mean_ns\":%.0f,\"latency_mean_"
				"ns\":%.0f,"
				"\"latency_p50_ns\":%.0f,\"latency_p99_ns\":%.0f}",
				k ? "," : "", nd->node, nd->depth, d.mean, lat.mean, lat.p50,
				lat.p99);
		}
		fputs("]}", f);
	}
	fputs("],\"requests\":[", f);
	for (size_t i = 0; i < n->npairs; i++) {
		if (n->pairs[i].parent >= 0)
			continue;
		fprintf(f, "%s{\"id\":%" PRIu64 ",\"complete\":true,\"exact\":false,\"root\":",
			id ? "," : "", id + 1);
		json_call(n, t, (uint32_t)i, f);
		fputc('}', f);
		id++;
	}
	fputs("]}\n", f);
}
