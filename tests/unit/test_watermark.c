// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's watermark: the line up to which records are written never
 * passes a record that can still arrive.  Rounds are told what the
 * recorder would see: a CPU still writing since some stamp, a batch a
 * program held when its CPU was asked to flush, a ring not emptied.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "../../user/watermark.h"

#define MS 1000000ull
#define MARGIN (20 * MS)

/* A round in which nothing holds the line back on any CPU. */
static uint64_t quiet_round(struct watermark *w, unsigned ncpus, uint64_t start)
{
	watermark__begin(w, start);
	for (unsigned c = 0; c < ncpus; c++)
		watermark__flushed(w, c, true);
	return watermark__end(w);
}

static void test_quiet_rounds_follow_the_clock(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);

	(void)state;
	assert_non_null(w);
	assert_int_equal(quiet_round(w, 2, 1000 * MS), 980 * MS);
	assert_int_equal(quiet_round(w, 2, 1100 * MS), 1080 * MS);
	assert_int_equal(watermark__held_rounds(w), 0);
	watermark__free(w);
}

/* A program stamped a record at 1000 ms and is held up for 300 ms before it reaches the ring. */
static void test_a_cpu_still_writing_holds_the_line(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);
	uint64_t line;

	(void)state;
	assert_int_equal(quiet_round(w, 2, 990 * MS), 970 * MS);
	for (uint64_t start = 1100 * MS; start <= 1300 * MS; start += 100 * MS) {
		watermark__begin(w, start);
		watermark__in_flight(w, 1, 1000 * MS);
		watermark__flushed(w, 0, true);
		watermark__flushed(w, 1, true);
		line = watermark__end(w);
		assert_true(line < 1000 * MS);
		assert_true(line >= 970 * MS);
	}
	assert_int_equal(watermark__held_rounds(w), 3);
	/* Done: the line moves on at once. */
	assert_int_equal(quiet_round(w, 2, 1400 * MS), 1380 * MS);
	watermark__free(w);
}

/*
 * The exec watch is deciding about a program exec'ed at 1000 ms, and may
 * write a record stamped then (docs/recorder.md): the line stays before it
 * whatever the CPUs say, and moves on once it is decided.
 */
static void test_a_hold_keeps_the_line_before_it(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);
	uint64_t line;

	(void)state;
	assert_int_equal(quiet_round(w, 2, 990 * MS), 970 * MS);
	watermark__begin(w, 1200 * MS);
	watermark__hold(w, 1000 * MS);
	watermark__flushed(w, 0, true);
	watermark__flushed(w, 1, true);
	line = watermark__end(w);
	assert_int_equal(line, 1000 * MS - 1);
	assert_int_equal(watermark__held_rounds(w), 1);
	assert_int_equal(quiet_round(w, 2, 1300 * MS), 1280 * MS);
	watermark__free(w);
}

/*
 * CPU 0's batch was held by a program when it was asked to flush: the
 * batch may hold operations stamped since its last flush that found it
 * free, so the line stays at that flush's line.
 */
static void test_a_held_batch_keeps_the_line_at_its_last_flush(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);

	(void)state;
	assert_int_equal(quiet_round(w, 2, 1000 * MS), 980 * MS);
	watermark__begin(w, 1100 * MS);
	watermark__flushed(w, 0, false);
	watermark__flushed(w, 1, true);
	assert_int_equal(watermark__end(w), 980 * MS);
	watermark__begin(w, 1200 * MS);
	watermark__flushed(w, 0, false);
	watermark__flushed(w, 1, true);
	assert_int_equal(watermark__end(w), 980 * MS);
	assert_int_equal(quiet_round(w, 2, 1300 * MS), 1280 * MS);
	watermark__free(w);
}

/*
 * The last flush that found the batch free came while a program was
 * writing (stamped 1050 ms, not in the batch yet): the batch may hold that
 * operation, so a later held batch keeps the line before 1050 ms, not at
 * that round's start.
 */
static void test_a_flush_while_writing_counts_from_the_oldest_stamp(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);

	(void)state;
	watermark__begin(w, 1100 * MS);
	watermark__in_flight(w, 0, 1050 * MS);
	watermark__flushed(w, 0, true);
	watermark__flushed(w, 1, true);
	assert_true(watermark__end(w) < 1050 * MS);
	watermark__begin(w, 1200 * MS);
	watermark__flushed(w, 0, false);
	watermark__flushed(w, 1, true);
	assert_true(watermark__end(w) < 1050 * MS);
	watermark__free(w);
}

/* Before any flush found the batch free, nothing of that CPU is sure. */
static void test_a_batch_never_flushed_holds_everything(void **state)
{
	struct watermark *w = watermark__new(2, MARGIN);

	(void)state;
	watermark__begin(w, 1000 * MS);
	watermark__flushed(w, 0, false);
	watermark__flushed(w, 1, true);
	assert_int_equal(watermark__end(w), 0);
	watermark__free(w);
}

/* A record reserved in the ring and not complete hides those behind it: no move that round. */
static void test_an_unfinished_ring_record_stops_the_line(void **state)
{
	struct watermark *w = watermark__new(1, MARGIN);

	(void)state;
	assert_int_equal(quiet_round(w, 1, 1000 * MS), 980 * MS);
	watermark__begin(w, 1100 * MS);
	watermark__flushed(w, 0, true);
	watermark__ring_behind(w);
	assert_int_equal(watermark__end(w), 980 * MS);
	assert_int_equal(watermark__held_rounds(w), 1);
	assert_int_equal(quiet_round(w, 1, 1200 * MS), 1180 * MS);
	watermark__free(w);
}

/* What was written stays written: the line never goes back. */
static void test_the_line_never_goes_back(void **state)
{
	struct watermark *w = watermark__new(1, MARGIN);

	(void)state;
	assert_int_equal(quiet_round(w, 1, 1000 * MS), 980 * MS);
	watermark__begin(w, 1100 * MS);
	watermark__in_flight(w, 0, 900 * MS); /* a stale mark: older than anything pending */
	watermark__flushed(w, 0, true);
	assert_int_equal(watermark__end(w), 980 * MS);
	assert_int_equal(quiet_round(w, 1, 500 * MS), 980 * MS);
	watermark__free(w);
}

/* CPUs the recorder does not know (out of range) change nothing. */
static void test_unknown_cpus_are_ignored(void **state)
{
	struct watermark *w = watermark__new(1, MARGIN);

	(void)state;
	watermark__begin(w, 1000 * MS);
	watermark__in_flight(w, 5, 10 * MS);
	watermark__flushed(w, 5, false);
	watermark__flushed(w, 0, true);
	assert_int_equal(watermark__end(w), 980 * MS);
	watermark__free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quiet_rounds_follow_the_clock),
		cmocka_unit_test(test_a_cpu_still_writing_holds_the_line),
		cmocka_unit_test(test_a_hold_keeps_the_line_before_it),
		cmocka_unit_test(test_a_held_batch_keeps_the_line_at_its_last_flush),
		cmocka_unit_test(test_a_flush_while_writing_counts_from_the_oldest_stamp),
		cmocka_unit_test(test_a_batch_never_flushed_holds_everything),
		cmocka_unit_test(test_an_unfinished_ring_record_stops_the_line),
		cmocka_unit_test(test_the_line_never_goes_back),
		cmocka_unit_test(test_unknown_cpus_are_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
