// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Baseline stage, convolution: Project 5's convolution algorithm over a message trace (convolution.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/convolution.h"

void vp_conv_opts__default(struct vp_conv_opts *o)
{
	o->quantum_ns = 100 * 1000;
	o->max_lag_ns = 50 * 1000 * 1000;
	o->spike_sd = 4;
	o->valley_sd = 3;
	o->min_msgs = 10;
	o->min_frac = 0.02;
	o->max_depth = 6;
	o->max_edges = 5000;
}

struct out_msg {
	int64_t bin;
	uint32_t dst;
};

/* A sparse signal: the quanta that have messages, ascending, and how many. */
struct signal {
	int64_t *bin;
	uint32_t *n;
	size_t len;
};

struct conv {
	const struct vp_btrace *t;
	const struct vp_conv_opts *o;
	struct vp_convolution *c;
	struct out_msg **out; /* per node: what it sent, by time */
	size_t *nout;
	bool *root;
	int64_t t0;
	size_t lags;
	double *corr;
};

static int signal_of(struct signal *s, const int64_t *bins, size_t n)
{
	s->bin = malloc((n + 1) * sizeof(*s->bin));
	s->n = malloc((n + 1) * sizeof(*s->n));
	s->len = 0;
	if (!s->bin || !s->n)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (s->len && s->bin[s->len - 1] == bins[i]) {
			s->n[s->len - 1]++;
			continue;
		}
		s->bin[s->len] = bins[i];
		s->n[s->len++] = 1;
	}
	return 0;
}

static void signal_free(struct signal *s)
{
	free(s->bin);
	free(s->n);
}

/* C(d) = sum_t s_out(t + d) s_in(t), d in quanta 0 .. lags - 1. */
static void correlate(struct conv *cv, const struct signal *in, const struct signal *out)
{
	size_t z = 0;

	memset(cv->corr, 0, cv->lags * sizeof(*cv->corr));
	for (size_t i = 0; i < in->len; i++) {
		int64_t b = in->bin[i];

		while (z < out->len && out->bin[z] < b)
			z++;
		for (size_t k = z; k < out->len && out->bin[k] - b < (int64_t)cv->lags; k++)
			cv->corr[out->bin[k] - b] += sqrt((double)in->n[i] * (double)out->n[k]);
	}
}

/* Does the sorted signal have a quantum in [lo, hi]? */
static bool has_between(const struct signal *s, int64_t lo, int64_t hi)
{
	size_t a = 0, b = s->len;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (s->bin[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < s->len && s->bin[a] <= hi;
}

static int add_edge(struct vp_convolution *c, const struct vp_cedge *e)
{
	if (c->nedges == c->cap) {
		size_t n = c->cap ? c->cap * 2 : 64;
		struct vp_cedge *p = realloc(c->edges, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->edges = p;
		c->cap = n;
	}
	c->edges[c->nedges++] = *e;
	return 0;
}

static int process_node(struct conv *cv, uint32_t j, const int64_t *in_bins, size_t nin,
			int32_t edge, uint32_t depth);

/* One spike [lo, hi] (peak at `peak`) of j -> k after j's inputs: an edge, then followed from k. */
static int follow_spike(struct conv *cv, uint32_t j, uint32_t k, const struct signal *in,
			size_t nin, const int64_t *out, size_t nout, size_t lo, size_t hi,
			size_t peak, int32_t edge, uint32_t depth)
{
	struct vp_cedge e = {.from = j,
			     .to = k,
			     .parent = edge,
			     .depth = depth,
			     .delay_ns = (int64_t)peak * cv->o->quantum_ns + cv->o->quantum_ns / 2};
	int64_t *caused = malloc((nout + 1) * sizeof(*caused));
	int ret = 0;

	if (!caused)
		return -ENOMEM;
	for (size_t i = 0; i < nout; i++)
		if (has_between(in, out[i] - (int64_t)hi, out[i] - (int64_t)lo))
			caused[e.count++] = out[i];
	if (e.count < cv->o->min_msgs || (double)e.count < cv->o->min_frac * (double)nin)
		goto out;
	if (cv->c->nedges >= cv->o->max_edges) {
		cv->c->truncated = true;
		goto out;
	}
	if ((ret = add_edge(cv->c, &e)))
		goto out;
	if (!cv->root[k] && depth + 1 < cv->o->max_depth)
		ret = process_node(cv, k, caused, e.count, (int32_t)cv->c->nedges - 1, depth + 1);
out:
	free(caused);
	return ret;
}

/* The spikes of C(d), in order of delay: runs above S deviations whose top reaches N. */
static int find_spikes(struct conv *cv, uint32_t j, uint32_t k, const struct signal *in, size_t nin,
		       const int64_t *out, size_t nout, int32_t edge, uint32_t depth)
{
	struct signal sig = {0};
	size_t L = cv->lags;
	double *c = malloc(L * sizeof(*c)), mean = 0, sd = 0;
	int ret;

	if (!c || (ret = signal_of(&sig, out, nout))) {
		ret = -ENOMEM;
		goto out;
	}
	correlate(cv, in, &sig);
	memcpy(c, cv->corr, L * sizeof(*c)); /* the recursion reuses cv->corr */
	for (size_t d = 0; d < L; d++)
		mean += c[d];
	mean /= (double)L;
	for (size_t d = 0; d < L; d++)
		sd += (c[d] - mean) * (c[d] - mean);
	sd = sqrt(sd / (double)L);
	for (size_t d = 0; sd > 0 && d < L && !ret;) {
		size_t lo = d, peak = d;

		if (c[d] < mean + cv->o->valley_sd * sd) {
			d++;
			continue;
		}
		while (d < L && c[d] >= mean + cv->o->valley_sd * sd) {
			if (c[d] > c[peak])
				peak = d;
			d++;
		}
		if (c[peak] >= mean + cv->o->spike_sd * sd)
			ret = follow_spike(cv, j, k, in, nin, out, nout, lo, d - 1, peak, edge,
					   depth);
	}
out:
	free(c);
	signal_free(&sig);
	return ret;
}

/*
 * ProcessNode: what j sent in answer to the messages it got (in_bins, their
 * quanta, ascending), correlated with each destination's messages on its
 * own (the paper correlates with all of j's messages, then splits them by
 * destination: one busy edge then drowns the spikes of a quiet one).
 */
static int process_node(struct conv *cv, uint32_t j, const int64_t *in_bins, size_t nin,
			int32_t edge, uint32_t depth)
{
	struct signal in = {0};
	int64_t *out = malloc((cv->nout[j] + 1) * sizeof(*out));
	int ret = -ENOMEM;

	if (!out || signal_of(&in, in_bins, nin))
		goto done;
	ret = 0;
	for (uint32_t k = 0; k < cv->t->nnodes && !ret; k++) {
		size_t nout = 0;

		for (size_t i = 0; i < cv->nout[j]; i++)
			if (cv->out[j][i].dst == k)
				out[nout++] = cv->out[j][i].bin;
		if (nout)
			ret = find_spikes(cv, j, k, &in, nin, out, nout, edge, depth);
	}
done:
	free(out);
	signal_free(&in);
	return ret;
}

static int by_bin(const void *x, const void *y)
{
	const struct out_msg *a = x, *b = y;

	return a->bin < b->bin ? -1 : a->bin > b->bin;
}

static int setup(struct conv *cv)
{
	const struct vp_btrace *t = cv->t;
	size_t n = t->nnodes;
	size_t *cap;

	cv->t0 = INT64_MAX;
	for (size_t i = 0; i < t->nmsgs; i++)
		if (t->msgs[i].send_ns < cv->t0)
			cv->t0 = t->msgs[i].send_ns;
	cv->out = calloc(n, sizeof(*cv->out));
	cv->nout = calloc(n, sizeof(*cv->nout));
	cv->root = calloc(n, sizeof(*cv->root));
	cv->corr = calloc(cv->lags, sizeof(*cv->corr));
	cap = calloc(n, sizeof(*cap));
	if (!cv->out || !cv->nout || !cv->root || !cv->corr || !cap)
		goto nomem;
	for (size_t i = 0; i < n; i++)
		cv->root[i] = true;
	for (size_t i = 0; i < t->nmsgs; i++) {
		const struct vp_bmsg *m = &t->msgs[i];

		if (m->kind == VP_BMSG_CALL)
			cv->root[m->dst] = false;
		if (cv->nout[m->src] == cap[m->src]) {
			size_t c = cap[m->src] ? cap[m->src] * 2 : 64;
			struct out_msg *p = realloc(cv->out[m->src], c * sizeof(*p));

			if (!p)
				goto nomem;
			cv->out[m->src] = p;
			cap[m->src] = c;
		}
		cv->out[m->src][cv->nout[m->src]++] =
			(struct out_msg){(m->send_ns - cv->t0) / cv->o->quantum_ns, m->dst};
	}
	for (size_t i = 0; i < n; i++)
		qsort(cv->out[i], cv->nout[i], sizeof(*cv->out[i]), by_bin);
	free(cap);
	return 0;
nomem:
	free(cap);
	return -ENOMEM;
}

int vp_convolution__run(struct vp_convolution *c, const struct vp_btrace *t,
			const struct vp_conv_opts *o)
{
	struct conv cv = {.t = t, .o = o, .c = c};
	int ret;

	memset(c, 0, sizeof(*c));
	if (o->quantum_ns <= 0 || o->max_lag_ns < o->quantum_ns ||
	    o->max_lag_ns / o->quantum_ns > 10000000)
		return -EINVAL;
	cv.lags = (size_t)(o->max_lag_ns / o->quantum_ns);
	ret = setup(&cv);
	/* FindPathsFromRoot: from each root, one edge per destination, followed. */
	for (uint32_t i = 0; !ret && i < t->nnodes; i++) {
		if (!cv.root[i] || !cv.nout[i])
			continue;
		for (uint32_t j = 0; !ret && j < t->nnodes; j++) {
			int64_t *bins = malloc((cv.nout[i] + 1) * sizeof(*bins));
			size_t nb = 0;

			if (!bins) {
				ret = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < cv.nout[i]; k++)
				if (cv.out[i][k].dst == j)
					bins[nb++] = cv.out[i][k].bin;
			if (nb) {
				struct vp_cedge e = {.from = i, .to = j, .parent = -1, .count = nb};

				ret = add_edge(c, &e);
				if (!ret)
					ret = process_node(&cv, j, bins, nb, (int32_t)c->nedges - 1,
							   1);
			}
			free(bins);
		}
	}
	for (size_t i = 0; cv.out && i < t->nnodes; i++)
		free(cv.out[i]);
	free(cv.out);
	free(cv.nout);
	free(cv.root);
	free(cv.corr);
	return ret;
}

void vp_convolution__free(struct vp_convolution *c)
{
	free(c->edges);
	memset(c, 0, sizeof(*c));
}
