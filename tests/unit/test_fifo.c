// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The look-ahead's fifo (fifo.h): records of every size come out in the
 * order they went in, whole (up to the largest record type), with their
 * tags, across the rings' growth and wrap-around; untag clears one tag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fifo.h"

/* Record k: its type and size by k, its bytes after the header made of k. */
static void make(union vpr_any *r, uint32_t k)
{
	static const struct {
		uint16_t type, size;
	} kinds[] = {
		{VPR_SOCK_OP, sizeof(struct vpr_sock_op)},
		{VPR_CONN, sizeof(struct vpr_conn)},
		{VPR_CLOCK, sizeof(struct vpr_clock)},
		{VPR_SOCK_OP, sizeof(struct vpr_sock_op)},
		{VPR_TASK, sizeof(struct vpr_task)},
	};
	unsigned char *b = (unsigned char *)r;

	memset(r, 0, sizeof(*r));
	r->h.type = kinds[k % 5].type;
	r->h.size = kinds[k % 5].size;
	r->h.ts_ns = k;
	for (size_t i = sizeof(r->h); i < r->h.size; i++)
		b[i] = (unsigned char)(k * 7 + i);
}

static void check(const struct vpr_hdr *got, uint32_t k)
{
	union vpr_any want;

	make(&want, k);
	assert_non_null(got);
	assert_int_equal(got->ts_ns, k);
	assert_memory_equal(got, &want, want.h.size);
}

/* Pushed in bursts larger than the rings and popped in smaller ones: they grow and wrap. */
static void test_order_and_contents(void **state)
{
	struct vp_fifo f = {0};
	uint32_t in = 0, out = 0;

	(void)state;
	for (int round = 0; round < 40; round++) {
		int push = round < 20 ? 700 : 300, pop = 500;

		for (int i = 0; i < push; i++, in++) {
			union vpr_any r;

			make(&r, in);
			assert_int_equal(vp_fifo__push(&f, &r.h, (void *)(uintptr_t)(in + 1)), 0);
		}
		for (int i = 0; i < pop && out < in; i++, out++) {
			assert_ptr_equal(vp_fifo__peek_tag(&f), (void *)(uintptr_t)(out + 1));
			check(vp_fifo__peek(&f), out);
			check(vp_fifo__pop(&f), out);
		}
	}
	while (out < in)
		check(vp_fifo__pop(&f), out++);
	assert_null(vp_fifo__peek(&f));
	assert_null(vp_fifo__pop(&f));
	vp_fifo__free(&f);
}

static void test_untag(void **state)
{
	struct vp_fifo f = {0};
	int a, b;

	(void)state;
	for (uint32_t k = 0; k < 10; k++) {
		union vpr_any r;

		make(&r, k);
		assert_int_equal(vp_fifo__push(&f, &r.h, k % 2 ? (void *)&a : (void *)&b), 0);
	}
	vp_fifo__untag(&f, &a);
	for (uint32_t k = 0; k < 10; k++) {
		assert_ptr_equal(vp_fifo__peek_tag(&f), k % 2 ? NULL : (void *)&b);
		check(vp_fifo__pop(&f), k);
	}
	vp_fifo__free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_contents),
		cmocka_unit_test(test_untag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
