// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The recorder's reorder buffer: per-CPU streams of socket operations and
 * lone records come out as one stream in timestamp order, nothing stamped
 * after the cut-off comes out early, and nothing is lost or repeated.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../user/reorder.h"

#define MAX_OUT 200000

struct sink {
	size_t n;
	uint64_t ts[MAX_OUT];
	uint32_t tid[MAX_OUT];
	uint16_t type[MAX_OUT];
	size_t fail_at; /* refuse the record with this index (0: never) */
};

static int collect(void *ctx, const void *rec)
{
	struct sink *s = ctx;
	const struct vpr_hdr *h = rec;

	if (s->fail_at && s->n == s->fail_at)
		return -EIO;
	assert_true(s->n < MAX_OUT);
	s->ts[s->n] = h->ts_ns;
	s->tid[s->n] = h->tid;
	s->type[s->n] = h->type;
	s->n++;
	return 0;
}

static struct vpr_sock_op op(uint64_t ts, uint32_t tid)
{
	struct vpr_sock_op o;

	memset(&o, 0, sizeof(o));
	o.h.type = VPR_SOCK_OP;
	o.h.size = sizeof(o);
	o.h.tid = tid;
	o.h.ts_ns = ts;
	return o;
}

static struct vpr_conn conn(uint64_t ts, uint32_t tid)
{
	struct vpr_conn c;

	memset(&c, 0, sizeof(c));
	c.h.type = VPR_CONN;
	c.h.size = sizeof(c);
	c.h.tid = tid;
	c.h.ts_ns = ts;
	c.cookie = ts * 3;
	return c;
}

static struct sink *new_sink(void)
{
	struct sink *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	return s;
}

/* What came out is records 1..n (tids), in that order. */
static void assert_tids_one_to(const struct sink *s, size_t n)
{
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->tid[i], i + 1);
}

static void test_merges_cpus_and_lone_records(void **state)
{
	struct reorder *ro = reorder__new(2);
	struct vpr_sock_op cpu0[] = {op(10, 1), op(30, 2), op(50, 3)};
	struct vpr_sock_op cpu1[] = {op(20, 4), op(40, 5), op(60, 6)};
	struct vpr_conn c1 = conn(35, 7), c2 = conn(5, 8);
	struct sink *s = new_sink();
	uint32_t want[] = {8, 1, 4, 2, 7, 5, 3};

	assert_non_null(ro);
	assert_int_equal(reorder__add_ops(ro, 0, cpu0, 3), 0);
	assert_int_equal(reorder__add(ro, &c1), 0);
	assert_int_equal(reorder__add_ops(ro, 1, cpu1, 3), 0);
	assert_int_equal(reorder__add(ro, &c2), 0);
	assert_int_equal(reorder__held(ro), 8);
	/* 60 is after the cut-off: held back. */
	assert_int_equal(reorder__emit(ro, 55, collect, s), 0);
	assert_int_equal(s->n, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(s->tid[i], want[i]);
	assert_int_equal(s->type[0], VPR_CONN);
	assert_int_equal(reorder__held(ro), 1);
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), 0);
	assert_int_equal(s->n, 8);
	assert_int_equal(s->tid[7], 6);
	assert_int_equal(reorder__held(ro), 0);
	free(s);
	reorder__free(ro);
}

/* Equal timestamps: lower CPU first, lone records last, lone ones in arrival order. */
static void test_ties_are_deterministic(void **state)
{
	struct reorder *ro = reorder__new(3);
	struct vpr_sock_op a = op(100, 1), b = op(100, 2), c = op(100, 3);
	struct vpr_conn l1 = conn(100, 4), l2 = conn(100, 5);
	struct sink *s = new_sink();

	assert_int_equal(reorder__add(ro, &l1), 0);
	assert_int_equal(reorder__add_ops(ro, 2, &c, 1), 0);
	assert_int_equal(reorder__add(ro, &l2), 0);
	assert_int_equal(reorder__add_ops(ro, 0, &a, 1), 0);
	assert_int_equal(reorder__add_ops(ro, 1, &b, 1), 0);
	assert_int_equal(reorder__emit(ro, 100, collect, s), 0);
	assert_tids_one_to(s, 5);
	free(s);
	reorder__free(ro);
}

static struct vpr_payload payload(const struct vpr_sock_op *o, uint16_t len)
{
	struct vpr_payload p;

	memset(&p, 0, sizeof(p));
	p.h.type = VPR_PAYLOAD;
	p.h.size = VPR_PAYLOAD_SIZE(len);
	p.h.tid = o->h.tid;
	p.h.ts_ns = o->h.ts_ns;
	p.cookie = o->cookie;
	p.seq_end = o->seq_end;
	p.dir = o->dir;
	p.len = len;
	return p;
}

/*
 * A payload comes right behind its operation, even when another CPU has an
 * operation stamped the same nanosecond and the payload arrived first; one
 * whose operation never came is handed out in time order; each once.
 */
static void test_payload_follows_its_operation(void **state)
{
	struct reorder *ro = reorder__new(2);
	struct vpr_sock_op a = op(100, 1), b = op(100, 3), c = op(200, 4);
	struct vpr_sock_op gone = op(150, 9);
	struct vpr_payload pa, pc, pgone;
	struct sink *s = new_sink();

	a.cookie = 7;
	b.cookie = 8;
	c.cookie = 7;
	c.seq_end = 50;
	gone.cookie = 7;
	pa = payload(&a, 5);
	pc = payload(&c, 256);
	pgone = payload(&gone, 1);
	assert_int_equal(reorder__add_payload(ro, &pc), 0);
	assert_int_equal(reorder__add_payload(ro, &pgone), 0);
	assert_int_equal(reorder__add_payload(ro, &pa), 0);
	assert_int_equal(reorder__add_ops(ro, 1, &b, 1), 0);
	assert_int_equal(reorder__add_ops(ro, 0, &a, 1), 0);
	assert_int_equal(reorder__add_ops(ro, 0, &c, 1), 0);
	assert_int_equal(reorder__held(ro), 6);
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), 0);
	assert_int_equal(s->n, 6);
	uint16_t types[] = {VPR_SOCK_OP, VPR_PAYLOAD, VPR_SOCK_OP,
			    VPR_PAYLOAD, VPR_SOCK_OP, VPR_PAYLOAD};
	uint64_t ts[] = {100, 100, 100, 150, 200, 200};
	uint32_t tids[] = {1, 1, 3, 9, 4, 4};

	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(s->type[i], types[i]);
		assert_int_equal(s->ts[i], ts[i]);
		assert_int_equal(s->tid[i], tids[i]);
	}
	assert_int_equal(reorder__held(ro), 0);
	pa.h.size = 8;
	assert_int_equal(reorder__add_payload(ro, &pa), -EINVAL);
	free(s);
	reorder__free(ro);
}

/* An operation earlier than its CPU's last one (never expected) is still put in its place. */
static void test_late_operation_of_a_cpu(void **state)
{
	struct reorder *ro = reorder__new(1);
	struct vpr_sock_op ops[] = {op(10, 1), op(30, 3), op(20, 2), op(40, 4)};
	struct sink *s = new_sink();

	assert_int_equal(reorder__add_ops(ro, 0, ops, 4), 0);
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), 0);
	assert_tids_one_to(s, 4);
	free(s);
	reorder__free(ro);
}

/* A refused record is not lost: the next hand-out starts with it. */
static void test_refused_record_stays(void **state)
{
	struct reorder *ro = reorder__new(2);
	struct vpr_sock_op cpu0[] = {op(1, 1), op(3, 3)}, cpu1[] = {op(2, 2), op(4, 4)};
	struct sink *s = new_sink();

	assert_int_equal(reorder__add_ops(ro, 0, cpu0, 2), 0);
	assert_int_equal(reorder__add_ops(ro, 1, cpu1, 2), 0);
	s->fail_at = 2;
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), -EIO);
	assert_int_equal(s->n, 2);
	assert_int_equal(reorder__held(ro), 2);
	s->fail_at = 0;
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), 0);
	assert_tids_one_to(s, 4);
	free(s);
	reorder__free(ro);
}

static void test_rejects_bad_input(void **state)
{
	struct reorder *ro = reorder__new(2);
	struct vpr_sock_op o = op(1, 1);
	struct vpr_hdr h = {.type = VPR_CONN, .size = 4};

	assert_int_equal(reorder__add_ops(ro, 2, &o, 1), -EINVAL);
	assert_int_equal(reorder__add(ro, &h), -EINVAL);
	h.size = sizeof(union vpr_any) + 8;
	assert_int_equal(reorder__add(ro, &h), -EINVAL);
	assert_int_equal(reorder__held(ro), 0);
	reorder__free(ro);
	reorder__free(NULL);
}

/*
 * As the recorder uses it: 8 CPUs sending batches of increasing stamps that
 * lag each other, lone records stamped anywhere after the last cut-off,
 * rounds with a rising cut-off.  Whatever comes out is in order, comes out
 * only once its time is past, and in the end everything has come out.
 */
static void test_rounds_keep_order_and_lose_nothing(void **state)
{
	enum {
		NCPU = 8,
		ROUNDS = 400
	};
	struct reorder *ro = reorder__new(NCPU);
	struct sink *s = new_sink();
	uint64_t clock[NCPU] = {0}, cutoff = 0, added = 0;
	uint32_t id = 0;

	srand(7);
	for (int round = 0; round < ROUNDS; round++) {
		for (int cpu = 0; cpu < NCPU; cpu++) {
			struct vpr_sock_op batch[64];
			size_t n = (size_t)(rand() % 65);

			for (size_t i = 0; i < n; i++) {
				/* Never stamped at or before the cut-off already handed out. */
				if (clock[cpu] <= cutoff)
					clock[cpu] = cutoff + 1;
				clock[cpu] += (uint64_t)(rand() % 50);
				batch[i] = op(clock[cpu], ++id);
			}
			assert_int_equal(reorder__add_ops(ro, (unsigned)cpu, batch, n), 0);
			added += n;
		}
		for (int i = rand() % 5; i > 0; i--) {
			struct vpr_conn c = conn(cutoff + 1 + (uint64_t)(rand() % 2000), ++id);

			assert_int_equal(reorder__add(ro, &c), 0);
			added++;
		}
		cutoff += (uint64_t)(rand() % 1200);
		size_t before = s->n;

		assert_int_equal(reorder__emit(ro, cutoff, collect, s), 0);
		for (size_t i = before; i < s->n; i++)
			assert_true(s->ts[i] <= cutoff);
		assert_int_equal(reorder__held(ro) + s->n, added);
	}
	assert_int_equal(reorder__emit(ro, UINT64_MAX, collect, s), 0);
	assert_int_equal(s->n, added);
	assert_true(added > 50000);
	for (size_t i = 1; i < s->n; i++)
		assert_true(s->ts[i - 1] <= s->ts[i]);
	/* Each record exactly once. */
	uint8_t *seen = calloc(id + 1, 1);

	assert_non_null(seen);
	for (size_t i = 0; i < s->n; i++) {
		assert_false(seen[s->tid[i]]);
		seen[s->tid[i]] = 1;
	}
	free(seen);
	free(s);
	reorder__free(ro);
}

/* Nothing to hand to the sink: counts only. */
static int count_only(void *ctx, const void *rec)
{
	(void)rec;
	(*(size_t *)ctx)++;
	return 0;
}

/*
 * A backlog (the recorder starved of CPU) grows the queues; once it is handed
 * out, the queues give the memory back, also while a trickle goes on.
 */
static void test_backlog_memory_is_given_back(void **state)
{
	enum {
		BACKLOG = 400000,
		BATCH = 64
	};
	struct reorder *ro = reorder__new(2);
	struct vpr_sock_op batch[BATCH];
	uint64_t ts = 1;
	size_t out = 0, idle, peak;

	(void)state;
	assert_non_null(ro);
	idle = reorder__reserved_bytes(ro);
	for (size_t n = 0; n < BACKLOG; n += BATCH) {
		for (size_t i = 0; i < BATCH; i++)
			batch[i] = op(ts++, 1);
		assert_int_equal(reorder__add_ops(ro, (unsigned)(n / BATCH % 2), batch, BATCH), 0);
	}
	for (int i = 0; i < 1000; i++) {
		struct vpr_conn c = conn(ts++, 2);

		assert_int_equal(reorder__add(ro, &c), 0);
	}
	peak = reorder__reserved_bytes(ro);
	assert_true(peak >= BACKLOG * sizeof(struct vpr_sock_op));
	/* The backlog goes out, a trickle keeps coming; its latest are held back, as the recorder does. */
	for (int round = 0; round < 2 * REORDER_CALM_ROUNDS; round++) {
		assert_int_equal(reorder__emit(ro, ts - 4, count_only, &out), 0);
		for (size_t i = 0; i < 8; i++)
			batch[i] = op(ts++, 1);
		assert_int_equal(reorder__add_ops(ro, 0, batch, 8), 0);
	}
	assert_int_equal(reorder__emit(ro, UINT64_MAX, count_only, &out), 0);
	assert_int_equal(out, BACKLOG + 1000 + 8 * 2 * REORDER_CALM_ROUNDS);
	assert_true(reorder__reserved_bytes(ro) <= peak / 8);
	assert_true(reorder__reserved_bytes(ro) >= idle);
	reorder__free(ro);
}

/*
 * A steady load that fills a CPU's queue beyond REORDER_KEEP at every poll
 * keeps the queue's size: shrinking after each hand-out made it grow again
 * at the next poll, touching fresh pages every time (reorder.c).  The
 * latest operations are held back at each hand-out, as the recorder does,
 * so the queue never empties.
 */
static void test_steady_load_keeps_its_queue(void **state)
{
	enum {
		PER_POLL = 3 * REORDER_KEEP
	};
	static struct vpr_sock_op batch[PER_POLL];
	struct reorder *ro = reorder__new(1);
	uint64_t ts = 1;
	size_t out = 0, reserved = 0;

	(void)state;
	assert_non_null(ro);
	for (int poll = 0; poll < 2 * REORDER_CALM_ROUNDS; poll++) {
		for (size_t i = 0; i < PER_POLL; i++)
			batch[i] = op(ts++, 1);
		assert_int_equal(reorder__add_ops(ro, 0, batch, PER_POLL), 0);
		assert_int_equal(reorder__emit(ro, ts - 100, count_only, &out), 0);
		/* Grown once for what is held back, never shrunk. */
		assert_true(reorder__reserved_bytes(ro) >= reserved);
		reserved = reorder__reserved_bytes(ro);
	}
	assert_true(reserved >= PER_POLL * sizeof(struct vpr_sock_op));
	assert_int_equal(out, (size_t)PER_POLL * 2 * REORDER_CALM_ROUNDS - 99);
	reorder__free(ro);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merges_cpus_and_lone_records),
		cmocka_unit_test(test_steady_load_keeps_its_queue),
		cmocka_unit_test(test_ties_are_deterministic),
		cmocka_unit_test(test_payload_follows_its_operation),
		cmocka_unit_test(test_late_operation_of_a_cpu),
		cmocka_unit_test(test_refused_record_stays),
		cmocka_unit_test(test_rejects_bad_input),
		cmocka_unit_test(test_rounds_keep_order_and_lose_nothing),
		cmocka_unit_test(test_backlog_memory_is_given_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
