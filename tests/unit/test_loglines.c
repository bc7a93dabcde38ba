// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Log lines cut from writes (analyzer/loglines.c): several lines in one
 * write, one line in several writes of its thread, threads interleaved on
 * one file, a write longer than was recorded, bytes that are no text, and
 * what is left unfinished at the end; PostgreSQL's logging collector's
 * chunk headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loglines.h"

#define GOT_MAX 16

struct got {
	struct vp_logline *l[GOT_MAX];
	unsigned n;
};

static void take(void *ctx, struct vp_logline *l)
{
	struct got *g = ctx;

	assert_true(g->n < GOT_MAX);
	g->l[g->n++] = l;
}

static void got_free(struct got *g)
{
	for (unsigned i = 0; i < g->n; i++)
		free(g->l[i]);
	g->n = 0;
}

/* A write of `text` (its first `len` bytes recorded of `bytes`, 0: all) by tid to ino at ts. */
static void write_(struct vp_loglines *ll, struct got *g, uint32_t tid, uint64_t ino, uint64_t ts,
		   const char *text, uint32_t bytes)
{
	struct vpr_log rec;
	size_t len = strlen(text);

	memset(&rec, 0, sizeof(rec));
	rec.h.type = VPR_LOG;
	rec.h.size = VPR_LOG_SIZE(len);
	rec.h.tid = tid;
	rec.h.ts_ns = ts;
	rec.pid = 100;
	rec.ino = ino;
	rec.len = (uint16_t)len;
	rec.bytes = bytes ? bytes : (uint32_t)len;
	rec.kind = VPR_LOG_FILE;
	memcpy(rec.data, text, len);
	assert_int_equal(vp_loglines__write(ll, &rec, tid, 7, take, g), 0);
}

static void line_is(const struct vp_logline *l, uint32_t tid, uint64_t ts, const char *text,
		    bool cut)
{
	assert_string_equal(l->text, text);
	assert_int_equal(l->len, strlen(text));
	assert_int_equal(l->tid, tid);
	assert_int_equal(l->ts, ts);
	assert_int_equal(l->cut, cut);
	assert_int_equal(l->cause, 7);
}

static void test_lines_in_one_write(void **state)
{
	struct vp_loglines ll = {0};
	struct got g = {0};

	(void)state;
	write_(&ll, &g, 1, 9, 10, "first\nsecond\r\n\nthird\n", 0);
	assert_int_equal(g.n, 3);
	line_is(g.l[0], 1, 10, "first", false);
	line_is(g.l[1], 1, 10, "second", false);
	line_is(g.l[2], 1, 10, "third", false);
	assert_true(g.l[0]->batched && g.l[2]->batched);
	got_free(&g);
	/* One line a write, or one line over two writes: not batched. */
	write_(&ll, &g, 1, 9, 11, "alone\n", 0);
	write_(&ll, &g, 1, 9, 12, "in ", 0);
	write_(&ll, &g, 1, 9, 13, "two\n", 0);
	assert_int_equal(g.n, 2);
	assert_false(g.l[0]->batched || g.l[1]->batched);
	/* One newline recorded, more written after it: batched. */
	write_(&ll, &g, 1, 9, 14, "one\n", 40);
	assert_int_equal(g.n, 3);
	assert_true(g.l[2]->batched);
	got_free(&g);
	vp_loglines__free(&ll);
}

static void test_line_over_writes(void **state)
{
	struct vp_loglines ll = {0};
	struct got g = {0};

	(void)state;
	write_(&ll, &g, 1, 9, 10, "begun by one ", 0);
	/* Another thread writes a whole line to the same file meanwhile. */
	write_(&ll, &g, 2, 9, 11, "other\n", 0);
	/* The first thread writes to another file: its line there is its own. */
	write_(&ll, &g, 1, 8, 12, "elsewhere\n", 0);
	write_(&ll, &g, 1, 9, 13, "ended by another\nnext", 0);
	assert_int_equal(g.n, 3);
	line_is(g.l[0], 2, 11, "other", false);
	line_is(g.l[1], 1, 12, "elsewhere", false);
	line_is(g.l[2], 1, 10, "begun by one ended by another", false);
	vp_loglines__flush(&ll, take, &g);
	assert_int_equal(g.n, 4);
	line_is(g.l[3], 1, 13, "next", false);
	got_free(&g);
	vp_loglines__free(&ll);
}

static void test_write_longer_than_recorded(void **state)
{
	struct vp_loglines ll = {0};
	struct got g = {0};

	(void)state;
	/* 100 bytes written, 12 recorded: the line's end is unknown, and no line goes on. */
	write_(&ll, &g, 1, 9, 10, "one\ntwo is lo", 100);
	write_(&ll, &g, 1, 9, 11, "fresh\n", 0);
	assert_int_equal(g.n, 3);
	line_is(g.l[0], 1, 10, "one", false);
	line_is(g.l[1], 1, 10, "two is lo", true);
	line_is(g.l[2], 1, 11, "fresh", false);
	got_free(&g);
	vp_loglines__free(&ll);
}

static void test_binary_and_long(void **state)
{
	struct vp_loglines ll = {0};
	struct got g = {0};
	char chunk[201];

	(void)state;
	write_(&ll, &g, 1, 9, 10, "page \x01\x02 of a table\n", 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(ll.binary, 1);
	/* A line longer than VP_LOGLINE_MAX is cut there. */
	memset(chunk, 'x', 200);
	chunk[200] = 0;
	for (int i = 0; i < 6; i++)
		write_(&ll, &g, 1, 9, 20 + i, chunk, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.l[0]->len, VP_LOGLINE_MAX);
	assert_true(g.l[0]->cut);
	assert_int_equal(g.l[0]->ts, 20);
	got_free(&g);
	vp_loglines__free(&ll);
}

/* A chunk to PostgreSQL's logging collector: its 9-byte header of a length and pid, then text. */
static void pg_chunk(struct vp_loglines *ll, struct got *g, uint32_t pid, uint16_t n,
		     const char *text)
{
	struct vpr_log rec;
	size_t len = strlen(text);
	uint8_t hdr[9] = {0, 0, n & 0xff, n >> 8, pid & 0xff, pid >> 8 & 0xff, 0, 0, 0x11};

	memset(&rec, 0, sizeof(rec));
	rec.h.type = VPR_LOG;
	rec.h.tid = pid;
	rec.h.ts_ns = 5;
	rec.pid = pid;
	rec.ino = 3;
	rec.len = (uint16_t)(len + 9);
	rec.bytes = rec.len;
	rec.kind = VPR_LOG_PIPE;
	memcpy(rec.data, hdr, 9);
	memcpy(rec.data + 9, text, len);
	assert_int_equal(vp_loglines__write(ll, &rec, pid, 7, take, g), 0);
}

static void test_postgres_collector(void **state)
{
	struct vp_loglines ll = {0};
	struct got g = {0};

	(void)state;
	pg_chunk(&ll, &g, 26352, 16, "LOG:  statement\n");
	assert_int_equal(g.n, 1);
	line_is(g.l[0], 26352, 5, "LOG:  statement", false);
	/* Another length, or another pid, is no header: binary, no line. */
	pg_chunk(&ll, &g, 26352, 14, "LOG:  statement\n");
	assert_int_equal(g.n, 1);
	assert_int_equal(ll.binary, 1);
	got_free(&g);
	vp_loglines__free(&ll);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_in_one_write),
		cmocka_unit_test(test_line_over_writes),
		cmocka_unit_test(test_write_longer_than_recorded),
		cmocka_unit_test(test_binary_and_long),
		cmocka_unit_test(test_postgres_collector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
