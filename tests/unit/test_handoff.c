// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hand-offs seen without payload (analyzer/handoff.c), on exchanges written
 * by hand: a BRPOP answered 50 ms after its request, 0.1 ms after the same
 * thread read another connection's LPUSH, marks the LPUSH; a reply that
 * came at once, one whose server made a call meanwhile, one answered late
 * in the batch it was read in (no turn of the loop since), a request read
 * too long before the reply or before the wait began, and one on the
 * waiter's own connection are not marked.  The first bytes of a
 * connection older than the recording mark the request read just before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "handoff.h"

#define MS 1000000ull

static struct vp_xchg server(uint64_t cookie, uint64_t read_at)
{
	struct vp_xchg x;

	memset(&x, 0, sizeof(x));
	x.side = VP_SERVER;
	x.cookie = cookie;
	x.req.first_ts = x.req.last_ts = read_at;
	return x;
}

static void test_release_marks_the_push(void **state)
{
	struct vp_xchg wait = server(1, 100 * MS), push = server(2, 150 * MS);
	struct vp_xchg *inflight[] = {&wait, &push};

	(void)state;
	assert_true(vp_handoff__reply(inflight, 2, &wait, 120 * MS, 150 * MS + MS / 10));
	assert_true(push.may_hand_off);
	assert_false(wait.may_hand_off);
}

static void test_fast_reply_marks_nothing(void **state)
{
	struct vp_xchg get = server(1, 100 * MS), other = server(2, 100 * MS + MS / 10);
	struct vp_xchg *inflight[] = {&get, &other};

	(void)state;
	/* Answered 0.5 ms after its request: an ordinary call. */
	assert_false(vp_handoff__reply(inflight, 2, &get, 100 * MS + MS / 10, 100 * MS + MS / 2));
	assert_false(other.may_hand_off);
}

static void test_busy_with_calls_marks_nothing(void **state)
{
	struct vp_xchg front = server(1, 100 * MS), other = server(2, 150 * MS);
	struct vp_xchg call;
	struct vp_xchg *inflight[] = {&front, &other};

	(void)state;
	memset(&call, 0, sizeof(call));
	front.child_head = &call; /* it waited on a call of its own */
	assert_false(vp_handoff__reply(inflight, 2, &front, 120 * MS, 150 * MS + MS / 10));
	assert_false(other.may_hand_off);
}

static void test_late_in_one_batch_marks_nothing(void **state)
{
	struct vp_xchg get = server(1, 100 * MS), other = server(2, 103 * MS);
	struct vp_xchg *inflight[] = {&get, &other};

	(void)state;
	/* Read in one batch, preempted 3 ms, answered: no turn of the loop since get's request. */
	assert_false(vp_handoff__reply(inflight, 2, &get, 90 * MS, 103 * MS + MS / 10));
	assert_false(other.may_hand_off);
}

static void test_unrelated_reads_not_marked(void **state)
{
	struct vp_xchg wait = server(1, 100 * MS);
	struct vp_xchg early = server(2, 90 * MS), stale = server(3, 140 * MS);
	struct vp_xchg same_conn = server(1, 150 * MS);
	struct vp_xchg *inflight[] = {&wait, &early, &stale, &same_conn};

	(void)state;
	/* Before the wait began, 10 ms before the reply, on the waiter's connection. */
	assert_false(vp_handoff__reply(inflight, 4, &wait, 120 * MS, 150 * MS + MS / 10));
	assert_false(early.may_hand_off || stale.may_hand_off || same_conn.may_hand_off);
}

static void test_wait_older_than_recording(void **state)
{
	struct vp_xchg push = server(2, 5 * MS), old = server(3, 1 * MS);
	struct vp_xchg *inflight[] = {&push, &old};

	(void)state;
	assert_true(vp_handoff__unasked(inflight, 2, 1, 5 * MS + MS / 10));
	assert_true(push.may_hand_off);
	assert_false(old.may_hand_off);
	assert_false(vp_handoff__unasked(inflight, 2, 1, 50 * MS));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release_marks_the_push),
		cmocka_unit_test(test_fast_reply_marks_nothing),
		cmocka_unit_test(test_busy_with_calls_marks_nothing),
		cmocka_unit_test(test_late_in_one_batch_marks_nothing),
		cmocka_unit_test(test_unrelated_reads_not_marked),
		cmocka_unit_test(test_wait_older_than_recording),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
