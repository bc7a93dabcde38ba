// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A Go HTTP/2 reader's batches (analyzer/h2batch.c): the k-th unit it
 * readied after a read took the k-th stream's reply; a stream left over
 * from the previous read most often gets no ready (its caller is awake),
 * and when its caller of then is readied again, that unit takes it and is
 * no caller of another stream.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../analyzer/h2batch.h"

#define NX 8

struct given {
	struct vp_xchg *call[16], *req[16];
	unsigned n;
};

static void give(void *ctx, struct vp_xchg *c, struct vp_xchg *s)
{
	struct given *g = ctx;

	g->call[g->n] = c;
	g->req[g->n++] = s;
}

/* The request the last give() named for call c, NULL: none. */
static struct vp_xchg *given_to(const struct given *g, const struct vp_xchg *c)
{
	struct vp_xchg *s = NULL;

	for (unsigned i = 0; i < g->n; i++)
		if (g->call[i] == c)
			s = g->req[i];
	return s;
}

struct fixture {
	struct vp_hpaths paths; /* unref only decrements: no exchange is dead */
	struct vp_h2batch b;
	struct vp_xchg calls[NX], reqs[NX];
	struct given g;
};

static int setup(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));

	for (unsigned i = 0; i < NX; i++) {
		f->calls[i].id = 100 + i;
		f->calls[i].req.first_ts = 10;
		f->reqs[i].id = 200 + i;
		f->reqs[i].req.first_ts = 1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vp_h2batch__clear(&f->b, &f->paths);
	for (unsigned i = 0; i < NX; i++) {
		assert_int_equal(f->calls[i].refs, 0);
		assert_int_equal(f->reqs[i].refs, 0);
	}
	test_free(f);
	return 0;
}

static void woken(struct fixture *f, uint64_t unit, unsigned req)
{
	vp_h2batch__woken(&f->b, &f->paths, unit, &f->reqs[req], give, &f->g);
}

static void test_in_order(void **state)
{
	struct fixture *f = *state;

	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[1]);
	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[0]);
	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[1]);
	woken(f, 1001, 1);
	assert_int_equal(f->g.n, 0);
	woken(f, 1001, 1); /* the same unit again: counted once */
	assert_int_equal(f->g.n, 0);
	woken(f, 1000, 0);
	assert_ptr_equal(given_to(&f->g, &f->calls[1]), &f->reqs[1]);
	assert_ptr_equal(given_to(&f->g, &f->calls[0]), &f->reqs[0]);
	/* Decided: a later ready is something else. */
	woken(f, 1005, 5);
	assert_int_equal(f->g.n, 2);
}

/* A unit working for a request begun after the read's last stream was sent. */
static void test_late_request(void **state)
{
	struct fixture *f = *state;

	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[0]);
	f->reqs[5].req.first_ts = 20;
	woken(f, 1005, 5);
	woken(f, 1000, 0);
	assert_int_equal(f->g.n, 1);
	assert_ptr_equal(given_to(&f->g, &f->calls[0]), &f->reqs[0]);
}

/* First read: streams 0 and 1, their callers readied; the second read's streams 0, 2, 1, 3. */
static void two_reads(struct fixture *f)
{
	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[0]);
	vp_h2batch__frame(&f->b, &f->paths, 50, &f->calls[1]);
	woken(f, 1000, 0);
	woken(f, 1001, 1);
	assert_int_equal(f->g.n, 2);
	f->g.n = 0;
	vp_h2batch__frame(&f->b, &f->paths, 60, &f->calls[0]);
	vp_h2batch__frame(&f->b, &f->paths, 60, &f->calls[2]);
	vp_h2batch__frame(&f->b, &f->paths, 60, &f->calls[1]);
	vp_h2batch__frame(&f->b, &f->paths, 60, &f->calls[3]);
}

/* The streams left over get no ready: the others are paired by order. */
static void test_left_over(void **state)
{
	struct fixture *f = *state;

	two_reads(f);
	woken(f, 1002, 2);
	woken(f, 1003, 3);
	assert_int_equal(f->g.n, 2);
	assert_ptr_equal(given_to(&f->g, &f->calls[2]), &f->reqs[2]);
	assert_ptr_equal(given_to(&f->g, &f->calls[3]), &f->reqs[3]);
}

/*
 * Stream 0's caller parked again for the rest of its reply and is readied
 * first: it takes stream 0, and the next two take streams 2 and 3 (by
 * order alone, unit 1000 would have taken stream 2).
 */
static void test_left_over_readied_again(void **state)
{
	struct fixture *f = *state;

	two_reads(f);
	woken(f, 1000, 0);
	assert_ptr_equal(given_to(&f->g, &f->calls[0]), &f->reqs[0]);
	woken(f, 1000, 0);
	woken(f, 1002, 2);
	assert_null(given_to(&f->g, &f->calls[2]));
	woken(f, 1003, 3);
	assert_ptr_equal(given_to(&f->g, &f->calls[2]), &f->reqs[2]);
	assert_ptr_equal(given_to(&f->g, &f->calls[3]), &f->reqs[3]);
	/* Both callers of the streams left over readied: every stream was given its own. */
	woken(f, 1001, 1);
	assert_ptr_equal(given_to(&f->g, &f->calls[1]), &f->reqs[1]);
	assert_ptr_equal(given_to(&f->g, &f->calls[2]), &f->reqs[2]);
	assert_ptr_equal(given_to(&f->g, &f->calls[3]), &f->reqs[3]);
}

/* A unit readied that was given no stream of the previous read counts by order. */
static void test_new_unit_by_order(void **state)
{
	struct fixture *f = *state;

	two_reads(f);
	woken(f, 1004, 4);
	woken(f, 1002, 2);
	assert_ptr_equal(given_to(&f->g, &f->calls[2]), &f->reqs[4]);
	assert_ptr_equal(given_to(&f->g, &f->calls[3]), &f->reqs[2]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_left_over_readied_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_unit_by_order, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
