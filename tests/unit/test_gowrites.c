// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * grpc-go's Writes matched to the streams they name (analyzer/gowrites.c):
 * the one stream of the id open in the process, or opened within the
 * window after; ambiguous (never exact) when another stream of the id
 * may be the Write's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../analyzer/gowrites.h"

#define MS 1000000ull
#define PID 300

struct fixture {
	struct vp_hpaths paths; /* unref only decrements: no exchange is dead */
	struct vp_gowrites g;
	struct vp_xchg calls[4], req;
	struct vp_gowrite_match m;
};

static int setup(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));

	for (unsigned i = 0; i < 4; i++) {
		f->calls[i].h2_stream = true;
		f->calls[i].h2_id = 1;
		f->calls[i].refs = 1;
	}
	f->req.refs = 1;
	vp_gowrites__init(&f->g, &f->paths);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	vp_gowrites__free(&f->g);
	/* Every reference taken was given back. */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(f->calls[i].refs, 1);
	assert_int_equal(f->req.refs, 1);
	test_free(f);
	return 0;
}

static bool write_at(struct fixture *f, uint64_t unit, uint64_t ts)
{
	vp_gowrites__match_done(&f->g, &f->m);
	return vp_gowrites__write(&f->g, PID, 1, unit, &f->req, true, ts, &f->m);
}

static bool call_at(struct fixture *f, unsigned i, uint64_t ts)
{
	vp_gowrites__match_done(&f->g, &f->m);
	return vp_gowrites__call(&f->g, PID, &f->calls[i], ts, &f->m);
}

/* The HEADERS first, then the Write: matched, exact. */
static void test_write_after_its_headers(void **state)
{
	struct fixture *f = *state;

	assert_false(call_at(f, 0, 10 * MS));
	assert_true(write_at(f, 7, 11 * MS));
	assert_ptr_equal(f->m.call, &f->calls[0]);
	assert_ptr_equal(f->m.req, &f->req);
	assert_true(f->m.exact);
	vp_gowrites__match_done(&f->g, &f->m);
}

/* The Write first, its stream's HEADERS within the window: matched, exact. */
static void test_write_before_its_headers(void **state)
{
	struct fixture *f = *state;

	assert_false(write_at(f, 7, 10 * MS));
	assert_true(call_at(f, 0, 12 * MS));
	assert_ptr_equal(f->m.call, &f->calls[0]);
	assert_true(f->m.exact);
	vp_gowrites__match_done(&f->g, &f->m);
}

/* Its HEADERS past the window: no match, and the id's next match is not exact. */
static void test_write_too_early_is_lost(void **state)
{
	struct fixture *f = *state;

	assert_false(write_at(f, 7, 10 * MS));
	assert_false(call_at(f, 0, 10 * MS + VP_GOWRITE_WINDOW_NS + 1));
	assert_true(write_at(f, 8, 70 * MS));
	assert_ptr_equal(f->m.call, &f->calls[0]);
	assert_false(f->m.exact);
	assert_int_equal(f->g.unmatched, 1);
	vp_gowrites__match_done(&f->g, &f->m);
}

/* Two connections of the process with stream 1 open: the Write matches neither. */
static void test_two_streams_of_the_id_open(void **state)
{
	struct fixture *f = *state;

	call_at(f, 0, 10 * MS);
	call_at(f, 1, 10 * MS);
	assert_false(write_at(f, 7, 11 * MS));
	assert_int_equal(f->g.ambiguous, 1);
}

/* Another stream of the id opening right after a match: that match is undone. */
static void test_another_stream_of_the_id_soon_after(void **state)
{
	struct fixture *f = *state;

	call_at(f, 0, 10 * MS);
	assert_true(write_at(f, 7, 11 * MS));
	/* Its request ended (the Write's DATA), and another connection opens stream 1. */
	f->calls[0].h2_req_ended = true;
	assert_true(call_at(f, 1, 20 * MS));
	assert_null(f->m.call);
	assert_ptr_equal(f->m.unmake, &f->calls[0]);
	vp_gowrites__match_done(&f->g, &f->m);
}

/* Two goroutines' Writes before any stream of the id: neither is placed. */
static void test_two_writes_waiting(void **state)
{
	struct fixture *f = *state;

	write_at(f, 7, 10 * MS);
	write_at(f, 8, 11 * MS);
	assert_false(call_at(f, 0, 12 * MS));
	assert_null(f->m.call);
}

/* A stream whose request ended is no Write's any more; old slots are let go. */
static void test_ended_stream_and_sweep(void **state)
{
	struct fixture *f = *state;

	call_at(f, 0, 10 * MS);
	f->calls[0].h2_req_ended = true;
	assert_false(write_at(f, 7, 11 * MS));
	/* Much later, the waiting Write expired and the slot is swept. */
	f->calls[1].h2_id = 3;
	call_at(f, 1, 5000 * MS);
	f->calls[1].h2_req_ended = true;
	call_at(f, 2, 10000 * MS); /* h2_id 1 again: a new connection, nothing waits */
	assert_null(f->m.call);
	assert_null(f->m.unmake);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_after_its_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_before_its_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_too_early_is_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_streams_of_the_id_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_stream_of_the_id_soon_after, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_writes_waiting, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ended_stream_and_sweep, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
