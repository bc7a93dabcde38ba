// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The analysis's threads (analyzer/workers.c): every job of a batch runs
 * exactly once and is done when vp_workers__run returns, over many short
 * batches one after another (a thread late for one batch must not take a
 * job of the next), with and without a first job of another kind; with one
 * thread the jobs run in order, the first job first.  A job that waits for
 * the others (a thread held in it) does not stop the batch's other jobs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "workers.h"

#define MAXJOBS 64

struct count {
	unsigned ran[MAXJOBS + 1]; /* atomic: jobs' runs, the first job's at MAXJOBS */
	size_t order[MAXJOBS + 1];
	size_t norder; /* atomic */
};

static void job(void *ctx, size_t j)
{
	struct count *c = ctx;

	assert_true(j < MAXJOBS);
	__atomic_add_fetch(&c->ran[j], 1, __ATOMIC_RELAXED);
	c->order[__atomic_fetch_add(&c->norder, 1, __ATOMIC_RELAXED)] = j;
}

static void first_job(void *ctx, size_t j)
{
	struct count *c = ctx;

	assert_int_equal(j, 0);
	__atomic_add_fetch(&c->ran[MAXJOBS], 1, __ATOMIC_RELAXED);
	c->order[__atomic_fetch_add(&c->norder, 1, __ATOMIC_RELAXED)] = MAXJOBS;
}

static void batches(unsigned threads)
{
	struct vp_workers w;
	struct count c;

	assert_int_equal(vp_workers__init(&w, threads), 0);
	assert_int_equal(w.n, threads);
	for (unsigned b = 0; b < 20000; b++) {
		size_t n = (b * 7919u) % (MAXJOBS + 1);
		bool first = b % 3 == 0;

		memset(&c, 0, sizeof(c));
		if (first)
			vp_workers__run_first(&w, first_job, &c, n, job, &c);
		else
			vp_workers__run(&w, n, job, &c);
		for (size_t j = 0; j < MAXJOBS; j++)
			assert_int_equal(c.ran[j], j < n);
		assert_int_equal(c.ran[MAXJOBS], first);
		assert_int_equal(c.norder, n + first);
	}
	vp_workers__free(&w);
}

static void test_batches_2(void **state)
{
	(void)state;
	batches(2);
}

static void test_batches_4(void **state)
{
	(void)state;
	batches(4);
}

static void test_one_thread_in_order(void **state)
{
	struct vp_workers w;
	struct count c;

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(vp_workers__init(&w, 1), 0);
	vp_workers__run_first(&w, first_job, &c, 5, job, &c);
	vp_workers__free(&w);
	assert_int_equal(c.norder, 6);
	assert_int_equal(c.order[0], MAXJOBS);
	for (size_t j = 0; j < 5; j++)
		assert_int_equal(c.order[j + 1], j);
}

/* One thread held in job 0 until the other has done the other nine. */
struct held {
	unsigned release, in, others; /* atomic */
};

static void held_job(void *ctx, size_t j)
{
	struct held *h = ctx;

	if (j == 0) {
		__atomic_store_n(&h->in, 1, __ATOMIC_RELEASE);
		while (!__atomic_load_n(&h->release, __ATOMIC_ACQUIRE))
			;
		return;
	}
	if (__atomic_add_fetch(&h->others, 1, __ATOMIC_ACQ_REL) == 9)
		__atomic_store_n(&h->release, 1, __ATOMIC_RELEASE);
}

static void test_held_thread(void **state)
{
	struct vp_workers w;
	struct held h = {0};

	(void)state;
	assert_int_equal(vp_workers__init(&w, 2), 0);
	vp_workers__run(&w, 10, held_job, &h);
	assert_int_equal(h.others, 9);
	assert_int_equal(h.release, 1);
	vp_workers__free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_2),
		cmocka_unit_test(test_batches_4),
		cmocka_unit_test(test_one_thread_in_order),
		cmocka_unit_test(test_held_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
