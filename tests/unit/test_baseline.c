// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The statistical baselines (analyzer/baseline/) on a synthetic message
 * trace whose paths are known: a client A calls a web server W, which in
 * half of the requests calls C one millisecond in (pattern W(C)), and in
 * the other half calls D two milliseconds in and then C (pattern W(C,D)).
 * Requests arrive at random, 1.5 ms apart on average, and last 3.5 to
 * 6 ms, so several are in flight at W at once; each delay has a seeded
 * jitter.  Nesting must
 * find both patterns with their counts and delays, and most paths whole;
 * alone in time, every path; convolution must find W -> C and W -> D after
 * A -> W at their delays.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "baseline/convolution.h"
#include "baseline/nesting.h"

#define US(x) ((int64_t)(x)*1000)
#define NREQ 400

struct truth {
	int root;    /* call id of each request's root */
	int kids[2]; /* its calls, in order */
	int nkids;
};

static uint64_t rng = 88172645463325252ull;

static int64_t jitter(int64_t max)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int64_t)(rng % (uint64_t)(2 * max + 1)) - max;
}

/* One call from -> to, sent at t, returned at end: two messages. */
static int call(struct vp_btrace *t, int from, int to, int64_t at, int64_t end)
{
	struct vp_bcall id = {.conn_index = (uint32_t)t->ncalls};
	int c = vp_btrace__add_call(t, &id);
	struct vp_bmsg m = {at,		  at + US(20), (uint32_t)from,
			    (uint32_t)to, (uint32_t)c, VP_BMSG_CALL};

	assert_true(c >= 0);
	assert_int_equal(vp_btrace__add_msg(t, &m), 0);
	m = (struct vp_bmsg){end,	  end + US(20),	 (uint32_t)to, (uint32_t)from,
			     (uint32_t)c, VP_BMSG_RETURN};
	assert_int_equal(vp_btrace__add_msg(t, &m), 0);
	return c;
}

/* Exponential, mean m: arrivals at random, not periodic (a periodic input correlates everywhere). */
static int64_t exponential(int64_t m)
{
	double u = (double)((uint64_t)jitter(500000) + 500001) / 1000002.0;

	return (int64_t)(-log(u) * (double)m);
}

/*
 * The trace, requests `spacing` apart on average (at random when
 * `poisson`); truth[] says each request's calls.
 */
static void make_trace(struct vp_btrace *t, struct truth *truth, int64_t spacing, bool poisson)
{
	int64_t t0 = 0;

	int a = vp_btrace__add_node(t, "A"), w = vp_btrace__add_node(t, "W");
	int c = vp_btrace__add_node(t, "C"), d = vp_btrace__add_node(t, "D");

	for (int i = 0; i < NREQ; i++) {
		int64_t end;
		struct truth *r = &truth[i];

		t0 += poisson ? exponential(spacing) : spacing + jitter(US(200));

		if (i % 2 == 0) { /* W(C): C at +1 ms for 2 ms, reply 0.5 ms later */
			int64_t c0 = t0 + US(1000) + jitter(US(100)),
				c1 = c0 + US(2000) + jitter(US(100));

			end = c1 + US(500) + jitter(US(50));
			r->root = call(t, a, w, t0, end);
			r->kids[0] = call(t, w, c, c0, c1);
			r->nkids = 1;
		} else { /* W(D, C): D at +2 ms for 1 ms, then C 0.5 ms later for 2 ms */
			int64_t d0 = t0 + US(2000) + jitter(US(100)),
				d1 = d0 + US(1000) + jitter(US(100));
			int64_t c0 = d1 + US(500) + jitter(US(50)),
				c1 = c0 + US(2000) + jitter(US(100));

			end = c1 + US(300) + jitter(US(50));
			r->root = call(t, a, w, t0, end);
			r->kids[0] = call(t, w, d, d0, d1);
			r->kids[1] = call(t, w, c, c0, c1);
			r->nkids = 2;
		}
	}
}

static const struct vp_npattern *pattern(const struct vp_nesting *n, const char *key)
{
	for (size_t i = 0; i < n->npatterns; i++)
		if (!strcmp(n->patterns[i].key, key))
			return &n->patterns[i];
	return NULL;
}

static double mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* Requests whose root is a root and whose calls are exactly its true calls. */
static int paths_right(const struct vp_nesting *n, const struct truth *truth)
{
	int *pair_of = calloc(3 * NREQ, sizeof(*pair_of)), right = 0;

	assert_non_null(pair_of);
	for (size_t i = 0; i < n->npairs; i++)
		pair_of[n->pairs[i].call] = (int)i;
	for (int i = 0; i < NREQ; i++) {
		const struct vp_nest_pair *p = &n->pairs[pair_of[truth[i].root]];
		bool ok = p->parent < 0 && p->nkids == (uint32_t)truth[i].nkids;

		for (int k = 0; ok && k < truth[i].nkids; k++)
			ok = n->pairs[p->kids[k]].call == (uint32_t)truth[i].kids[k];
		right += ok;
	}
	free(pair_of);
	return right;
}

static void test_nesting_parallel(void **state)
{
	struct truth truth[NREQ];
	struct vp_btrace t = {0};
	struct vp_nest_opts o;
	struct vp_nesting n;
	const struct vp_npattern *p1, *p2;

	make_trace(&t, truth, US(1500), true);
	vp_nest_opts__default(&o);
	assert_int_equal(vp_nesting__run(&n, &t, &o), 0);
	assert_true((double)n.candidates / (double)(n.npairs - NREQ) > 1.5); /* it is parallel */
	p1 = pattern(&n, "W(C)");
	p2 = pattern(&n, "W(C,D)");
	assert_non_null(p1);
	assert_non_null(p2);
	/* The two true patterns hold nearly every request. */
	assert_true(p1->count >= NREQ / 2 * 9 / 10 && p1->count <= NREQ / 2 * 11 / 10);
	assert_true(p2->count >= NREQ / 2 * 9 / 10 && p2->count <= NREQ / 2 * 11 / 10);
	/* Per-hop delays: C 1 ms into W(C); latency of W about 3.5 ms. */
	assert_int_equal(p1->nnodes, 2);
	assert_true(mean(p1->nodes[1].delay, p1->nodes[1].n) > US(900));
	assert_true(mean(p1->nodes[1].delay, p1->nodes[1].n) < US(1100));
	assert_true(mean(p1->nodes[0].lat, p1->nodes[0].n) > US(3300));
	assert_true(mean(p1->nodes[0].lat, p1->nodes[0].n) < US(3700));
	assert_true(paths_right(&n, truth) >= NREQ * 85 / 100);
	vp_nesting__free(&n);
	vp_btrace__free(&t);
}

static void test_nesting_alone_is_right(void **state)
{
	struct truth truth[NREQ];
	struct vp_btrace t = {0};
	struct vp_nest_opts o;
	struct vp_nesting n;

	make_trace(&t, truth, US(10000), false);
	vp_nest_opts__default(&o);
	assert_int_equal(vp_nesting__run(&n, &t, &o), 0);
	assert_int_equal(paths_right(&n, truth), NREQ);
	assert_int_equal(n.npatterns, 2);
	vp_nesting__free(&n);
	vp_btrace__free(&t);
}

static const struct vp_cedge *edge(const struct vp_convolution *c, const struct vp_btrace *t,
				   const char *from, const char *to, int depth)
{
	for (size_t i = 0; i < c->nedges; i++) {
		const struct vp_cedge *e = &c->edges[i];

		if ((int)e->depth == depth && !strcmp(t->nodes[e->from].name, from) &&
		    !strcmp(t->nodes[e->to].name, to))
			return e;
	}
	return NULL;
}

static void test_convolution(void **state)
{
	struct truth truth[NREQ];
	struct vp_btrace t = {0};
	struct vp_conv_opts o;
	struct vp_convolution c;
	const struct vp_cedge *root, *wc, *wd;

	make_trace(&t, truth, US(1500), true);
	vp_conv_opts__default(&o);
	o.max_lag_ns = US(10000);
	assert_int_equal(vp_convolution__run(&c, &t, &o), 0);
	if (getenv("BASELINE_DEBUG"))
		vp_convolution__print(&c, &t, &o, stderr);
	root = edge(&c, &t, "A", "W", 0);
	wc = edge(&c, &t, "W", "C", 1);
	wd = edge(&c, &t, "W", "D", 1);
	assert_non_null(root);
	assert_int_equal(root->count, NREQ);
	assert_non_null(wc);
	assert_non_null(wd);
	assert_true(wc->parent == (int32_t)(root - c.edges) &&
		    wd->parent == (int32_t)(root - c.edges));
	assert_true(wc->delay_ns >= US(800) && wc->delay_ns <= US(1200));
	assert_true(wd->delay_ns >= US(1800) && wd->delay_ns <= US(2200));
	/* Each found for about the requests that make it. */
	assert_true(wd->count >= NREQ / 2 * 8 / 10 && wd->count <= NREQ / 2 * 12 / 10);
	vp_convolution__free(&c);
	vp_btrace__free(&t);
}

static void test_bad_options(void **state)
{
	struct vp_btrace t = {0};
	struct vp_conv_opts o;
	struct vp_convolution c;

	vp_conv_opts__default(&o);
	o.quantum_ns = 0;
	assert_int_equal(vp_convolution__run(&c, &t, &o), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_parallel),
		cmocka_unit_test(test_nesting_alone_is_right),
		cmocka_unit_test(test_convolution),
		cmocka_unit_test(test_bad_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
